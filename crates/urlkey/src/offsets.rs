//! Spans of URL components in the input as given. (in progress)
