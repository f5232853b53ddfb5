//! Where the file tools' paths land. With [`Builtins::root`](super::Builtins::root) every
//! path is opened relative to a directory handle of the root with cap-std, which resolves
//! it beneath that handle (Linux's `openat2` with `RESOLVE_BENEATH` where the kernel has
//! it, cap-std's own component-by-component walk elsewhere): an absolute symlink, or a
//! `..` (written or inside a link) that would climb above the root, fails the open
//! itself, so no sequence of links leaves the root, whatever was checked before. Without
//! a root, paths are opened as the process sees them.

use std::io::{self, Read as _, Write as _};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, Permissions};

/// One path a tool was given, ready to be opened.
#[derive(Clone)]
pub(super) struct Target {
    /// The path as messages show it: the given one, joined to the base when relative
    /// (what the Python port shows).
    pub(super) shown: PathBuf,
    place: Place,
}

#[derive(Clone)]
enum Place {
    /// No root: the path as the process sees it.
    Host(PathBuf),
    /// `rel`, opened beneath the root's handle and never outside it.
    Beneath { root: Arc<Dir>, rel: PathBuf },
}

/// Why a file was not loaded.
pub(super) enum LoadError {
    /// The open or the read failed.
    Io(io::Error),
    /// The file has more bytes than the cap (this many, or more).
    TooBig(u64),
}

/// Whether `error` is cap-std's refusal of a path that would leave the root (the
/// kernel's `EXDEV` from `RESOLVE_BENEATH`, or the same finding of cap-std's own walk).
pub(super) fn is_escape(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::PermissionDenied && error.raw_os_error().is_none()
}

/// Whether `error` is the kernel's "too many levels of symbolic links" (`ELOOP`): a
/// chain of links no open follows to its end.
fn is_loop(error: &io::Error) -> bool {
    #[cfg(unix)]
    {
        error.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32)
    }
    #[cfg(not(unix))]
    {
        let _ = error;
        false
    }
}

/// The error cap-std gives for a path that leaves the root.
fn escape() -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        "a path led outside of the root",
    )
}

/// Opens the root: the one path opened as the process sees it.
pub(super) fn open_root(base: &Path) -> io::Result<Arc<Dir>> {
    Dir::open_ambient_dir(base, ambient_authority()).map(Arc::new)
}

/// `given` as a path relative to the root `base`: a relative path as it is, an absolute
/// one with the root's own path (as configured, or its canonical form) taken off the
/// front; `None` for an absolute path elsewhere.
pub(super) fn beneath(base: &Path, given: &Path) -> Option<PathBuf> {
    if !given.is_absolute() {
        return Some(given.to_path_buf());
    }
    let absolute = std::path::absolute(base).ok();
    let canonical = base.canonicalize().ok();
    [absolute, canonical]
        .into_iter()
        .flatten()
        .find_map(|root| given.strip_prefix(&root).ok().map(Path::to_path_buf))
}

/// Confirms, through the root's handle, that opening `rel` (or making it and the
/// folders before it, as `write` and `apply_patch` do) stays beneath the root. Each
/// prefix that exists is looked up beneath the handle (links followed by the kernel,
/// refused when they climb out); past the first missing one, each name is a folder yet
/// to be made, which a `..` simply leaves again. Only an escape, or a chain of links
/// too long to follow, is an error here: what else fails is left to the operation,
/// which reports it.
pub(super) fn probe(root: &Dir, rel: &Path) -> io::Result<()> {
    let mut reached = PathBuf::new();
    let mut fresh = 0usize;
    for component in rel.components() {
        match component {
            Component::CurDir => continue,
            Component::RootDir | Component::Prefix(_) => return Err(escape()),
            Component::ParentDir if fresh > 0 => {
                reached.pop();
                fresh -= 1;
                continue;
            }
            Component::ParentDir | Component::Normal(_) => reached.push(component),
        }
        if fresh > 0 {
            fresh += 1;
            continue;
        }
        match root.metadata(&reached) {
            Ok(_) => {}
            Err(e) if is_escape(&e) || is_loop(&e) => return Err(e),
            Err(e) if e.kind() == io::ErrorKind::NotFound => fresh = 1,
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

impl Target {
    /// A path as the process sees it (no root).
    pub(super) fn host(path: PathBuf) -> Target {
        Target {
            shown: path.clone(),
            place: Place::Host(path),
        }
    }

    /// `rel` beneath the root's handle, shown as `shown`.
    pub(super) fn beneath(root: Arc<Dir>, rel: PathBuf, shown: PathBuf) -> Target {
        Target {
            shown,
            place: Place::Beneath { root, rel },
        }
    }

    /// The file `sub` (a relative path) under this folder.
    pub(super) fn child(&self, sub: &Path) -> Target {
        let place = match &self.place {
            Place::Host(path) => Place::Host(path.join(sub)),
            Place::Beneath { root, rel } => Place::Beneath {
                root: Arc::clone(root),
                rel: rel.join(sub),
            },
        };
        Target {
            shown: self.shown.join(sub),
            place,
        }
    }

    /// The folder this path is in, when it has one.
    pub(super) fn parent(&self) -> Option<Target> {
        let shown = self.shown.parent()?.to_path_buf();
        let place = match &self.place {
            Place::Host(path) => Place::Host(
                path.parent()
                    .filter(|p| !p.as_os_str().is_empty())?
                    .to_path_buf(),
            ),
            Place::Beneath { root, rel } => Place::Beneath {
                root: Arc::clone(root),
                rel: rel
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())?
                    .to_path_buf(),
            },
        };
        Some(Target { shown, place })
    }

    /// What names this file for the patch's bookkeeping: the path with `.` segments
    /// left out, so `a/./b` and `a/b` are one file.
    pub(super) fn key(&self) -> PathBuf {
        let path = match &self.place {
            Place::Host(path) => path,
            Place::Beneath { rel, .. } => rel,
        };
        path.components()
            .filter(|c| *c != Component::CurDir)
            .collect()
    }

    /// The path the host reaches this file or folder at, every link resolved (beneath
    /// the root, by the root's handle): a command's working directory, a walk's start.
    pub(super) fn host_path(&self, base: Option<&Path>) -> io::Result<PathBuf> {
        match &self.place {
            Place::Host(path) => Ok(path.clone()),
            Place::Beneath { root, rel } => {
                let inside = root.canonicalize(rel)?;
                let base = base.unwrap_or(Path::new(".")).canonicalize()?;
                Ok(base.join(inside))
            }
        }
    }

    fn open(&self) -> io::Result<std::fs::File> {
        match &self.place {
            Place::Host(path) => std::fs::File::open(path),
            Place::Beneath { root, rel } => root.open(rel).map(cap_std::fs::File::into_std),
        }
    }

    /// The file's bytes, at most `cap` of them: a longer file is not loaded.
    pub(super) fn load(&self, cap: usize) -> Result<Vec<u8>, LoadError> {
        let file = self.open().map_err(LoadError::Io)?;
        let cap = u64::try_from(cap).unwrap_or(u64::MAX);
        if let Ok(meta) = file.metadata()
            && meta.is_file()
            && meta.len() > cap
        {
            return Err(LoadError::TooBig(meta.len()));
        }
        let mut bytes = Vec::new();
        file.take(cap.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(LoadError::Io)?;
        if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > cap {
            return Err(LoadError::TooBig(cap.saturating_add(1)));
        }
        Ok(bytes)
    }

    /// Whether something is there (links followed; any error reads as no, as Python's
    /// `os.path.exists` reads it).
    pub(super) fn exists(&self) -> bool {
        match &self.place {
            Place::Host(path) => path.exists(),
            Place::Beneath { root, rel } => root.metadata(rel).is_ok(),
        }
    }

    /// Whether this path is a symbolic link (the link itself, not followed).
    pub(super) fn is_symlink(&self) -> bool {
        match &self.place {
            Place::Host(path) => path.is_symlink(),
            Place::Beneath { root, rel } => root
                .symlink_metadata(rel)
                .is_ok_and(|m| m.file_type().is_symlink()),
        }
    }

    /// The file's permissions (links followed).
    pub(super) fn permissions(&self) -> io::Result<Permissions> {
        match &self.place {
            Place::Host(path) => {
                std::fs::metadata(path).map(|m| Permissions::from_std(m.permissions()))
            }
            Place::Beneath { root, rel } => root.metadata(rel).map(|m| m.permissions()),
        }
    }

    /// Whether this path names a folder (links followed).
    pub(super) fn is_dir(&self) -> bool {
        match &self.place {
            Place::Host(path) => path.is_dir(),
            Place::Beneath { root, rel } => root.is_dir(rel),
        }
    }

    /// Makes this folder (its parent must exist).
    pub(super) fn create_dir(&self) -> io::Result<()> {
        match &self.place {
            Place::Host(path) => std::fs::create_dir(path),
            Place::Beneath { root, rel } => root.create_dir(rel),
        }
    }

    /// Makes this folder and every missing one before it.
    pub(super) fn create_dir_all(&self) -> io::Result<()> {
        match &self.place {
            Place::Host(path) => std::fs::create_dir_all(path),
            Place::Beneath { root, rel } => root.create_dir_all(rel),
        }
    }

    /// Removes this folder, when empty.
    pub(super) fn remove_dir(&self) -> io::Result<()> {
        match &self.place {
            Place::Host(path) => std::fs::remove_dir(path),
            Place::Beneath { root, rel } => root.remove_dir(rel),
        }
    }

    /// Removes this file (a link itself, not its target).
    pub(super) fn remove_file(&self) -> io::Result<()> {
        match &self.place {
            Place::Host(path) => std::fs::remove_file(path),
            Place::Beneath { root, rel } => root.remove_file(rel),
        }
    }

    /// Writes `bytes` over the file in place (created when missing; a link is written
    /// through, to its target, beneath the root too).
    pub(super) fn write(&self, bytes: &[u8]) -> io::Result<()> {
        match &self.place {
            Place::Host(path) => std::fs::write(path, bytes),
            Place::Beneath { root, rel } => root.write(rel, bytes),
        }
    }

    /// Puts `bytes` in place whole: written to a temporary file in the same folder
    /// (cap-tempfile: `O_TMPFILE` or a fresh random name, opened beneath the folder's
    /// handle), given `permissions` (or a new file's defaults), and renamed over the
    /// path, so a reader sees the old file or the new one, never a part. A link at the
    /// path is replaced by the file, as `sed -i` does.
    pub(super) fn replace(&self, bytes: &[u8], permissions: Option<Permissions>) -> io::Result<()> {
        let (folder, name) = match &self.place {
            Place::Host(path) => {
                let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
                let folder =
                    Dir::open_ambient_dir(parent.unwrap_or(Path::new(".")), ambient_authority())?;
                (folder, path.file_name())
            }
            Place::Beneath { root, rel } => {
                let parent = rel.parent().filter(|p| !p.as_os_str().is_empty());
                (
                    root.open_dir(parent.unwrap_or(Path::new(".")))?,
                    rel.file_name(),
                )
            }
        };
        let name = name.ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "the path does not name a file")
        })?;
        let mut temp = cap_tempfile::TempFile::new(&folder)?;
        temp.write_all(bytes)?;
        if let Some(permissions) = permissions {
            temp.as_file().set_permissions(permissions)?;
        }
        temp.replace(name)
    }
}
