//! Output files that never destroy data: a run writes into a temporary file beside the
//! target and renames it over the target only when everything was written, flushed and
//! synced. A failed run removes its temporary file and leaves the target as it was; so does
//! an interrupted one (the binary's signal handler calls [`remove_pending`]). After a
//! SIGKILL the target is untouched and the leftover is named `.<target>.<random>.urlkey-partial`.
//!
//! Special files (`/dev/null`, `/dev/stdout`, a FIFO, a terminal) are written directly:
//! renaming over them would replace the device itself.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::input::Source;

/// The temporary files of this process that are not yet renamed into place.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes every temporary file not yet renamed into place, and keeps the lock so that no
/// rename starts after it: for a signal handler that exits the process next.
pub fn remove_pending() -> usize {
    let mut p = pending();
    let n = p.len();
    for path in p.drain(..) {
        let _ = std::fs::remove_file(path);
    }
    std::mem::forget(p);
    n
}

/// Keeps a temporary file (a spill of standard input, say) on the list that
/// [`remove_pending`] clears; it leaves the list when dropped.
pub struct TempGuard(PathBuf);

impl TempGuard {
    /// Registers `path`.
    pub fn new(path: PathBuf) -> Self {
        pending().push(path.clone());
        TempGuard(path)
    }
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        pending().retain(|p| p != &self.0);
    }
}

/// An output being written.
pub struct OutputFile {
    target: PathBuf,
    inner: Target,
}

enum Target {
    Temp(tempfile::NamedTempFile, TempGuard),
    Direct(File),
}

impl OutputFile {
    /// Starts writing `path`: a temporary file beside it, or the special file itself.
    pub fn create(path: &Path) -> io::Result<Self> {
        let meta = std::fs::metadata(path).ok();
        if let Some(m) = &meta {
            if !m.is_file() {
                if m.is_dir() {
                    return Err(io::Error::new(
                        io::ErrorKind::IsADirectory,
                        "it is a directory",
                    ));
                }
                let f = std::fs::OpenOptions::new().write(true).open(path)?;
                return Ok(OutputFile {
                    target: path.to_path_buf(),
                    inner: Target::Direct(f),
                });
            }
        }
        // Through a symbolic link: replace the file it points to, not the link.
        let target = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path)?,
            _ => path.to_path_buf(),
        };
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "output".into());
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".urlkey-partial")
            .tempfile_in(&dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = meta.map_or(0o644, |m| m.permissions().mode() & 0o7777);
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        let guard = TempGuard::new(tmp.path().to_path_buf());
        Ok(OutputFile {
            target,
            inner: Target::Temp(tmp, guard),
        })
    }

    /// The path written in the end.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes, syncs and renames the file into place. Dropping an `OutputFile` without
    /// committing it removes the temporary file.
    pub fn commit(self) -> io::Result<()> {
        match self.inner {
            Target::Direct(mut f) => f.flush(),
            Target::Temp(mut tmp, guard) => {
                tmp.flush()?;
                tmp.as_file().sync_all()?;
                // Under the lock: a signal handler either removed the file already (the
                // rename then fails and the target stays as it was) or waits for the rename.
                let mut p = pending();
                tmp.persist(&self.target).map_err(|e| e.error)?;
                p.retain(|q| q != &guard.0);
                drop(p);
                std::mem::forget(guard);
                // The rename itself is durable once the directory is synced.
                if let Some(dir) = self.target.parent() {
                    let dir = if dir.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        dir
                    };
                    if let Ok(d) = File::open(dir) {
                        let _ = d.sync_all();
                    }
                }
                Ok(())
            }
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Target::Temp(t, _) => t.write(buf),
            Target::Direct(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Target::Temp(t, _) => t.flush(),
            Target::Direct(f) => f.flush(),
        }
    }
}

/// Refuses outputs that would overwrite an input (compared by device and inode, so hard
/// links, symbolic links and `./x` spellings are caught) or each other. Returns the message.
pub fn check_outputs(outputs: &[&Path], inputs: &[Source]) -> Result<(), String> {
    let id = |p: &Path| -> Option<(u64, u64)> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
        }
        #[cfg(not(unix))]
        {
            std::fs::canonicalize(p).ok().map(|c| {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                c.hash(&mut h);
                (0, h.finish())
            })
        }
    };
    let special = |p: &Path| std::fs::metadata(p).is_ok_and(|m| !m.is_file());
    for (i, out) in outputs.iter().enumerate() {
        let Some(oid) = id(out) else { continue };
        if special(out) {
            continue;
        }
        for src in inputs {
            if let Some(ip) = src.path() {
                if id(ip) == Some(oid) {
                    return Err(format!(
                        "the output {} is the input {}: write the output to another file",
                        out.display(),
                        src.name()
                    ));
                }
            }
        }
        for other in &outputs[..i] {
            if id(other) == Some(oid) {
                return Err(format!(
                    "{} is given as two outputs: give each output its own file",
                    out.display()
                ));
            }
        }
    }
    // Two outputs that do not exist yet but are spelled alike.
    for (i, out) in outputs.iter().enumerate() {
        if outputs[..i].iter().any(|o| o == out) {
            return Err(format!(
                "{} is given as two outputs: give each output its own file",
                out.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_committed_output_replaces_the_target_and_a_dropped_one_leaves_it() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        std::fs::write(&target, b"old").unwrap();
        let mut o = OutputFile::create(&target).unwrap();
        o.write_all(b"new").unwrap();
        drop(o);
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut o = OutputFile::create(&target).unwrap();
        o.write_all(b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        o.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn special_files_are_written_directly() {
        let mut o = OutputFile::create(Path::new("/dev/null")).unwrap();
        o.write_all(b"x").unwrap();
        o.commit().unwrap();
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device_like());
    }

    trait CharDevice {
        fn is_char_device_like(&self) -> bool;
    }
    impl CharDevice for std::fs::FileType {
        fn is_char_device_like(&self) -> bool {
            use std::os::unix::fs::FileTypeExt;
            self.is_char_device()
        }
    }

    #[test]
    fn outputs_naming_inputs_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.csv");
        std::fs::write(&input, b"a").unwrap();
        let link = dir.path().join("hard.csv");
        std::fs::hard_link(&input, &link).unwrap();
        let sym = dir.path().join("sym.csv");
        std::os::unix::fs::symlink(&input, &sym).unwrap();
        let inputs = [Source::File(input.clone())];
        for out in [&input, &link, &sym] {
            let e = check_outputs(&[out], &inputs).unwrap_err();
            assert!(e.contains("is the input"), "{e}");
        }
        let fresh = dir.path().join("new.csv");
        assert!(check_outputs(&[&fresh], &inputs).is_ok());
        assert!(check_outputs(&[&fresh, &fresh], &inputs).is_err());
        assert!(check_outputs(
            &[Path::new("/dev/null")],
            &[Source::File("/dev/null".into())]
        )
        .is_ok());
    }
}
