//! Social-profile shapes (seed 001). (in progress)
