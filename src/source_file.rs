//! Reading rule files: only regular files (a FIFO or a device would block
//! or never end), as UTF-8, with the place of the first invalid byte.

use std::io::{Error, ErrorKind};
use std::path::Path;

/// The text of a rule file.
pub fn read_source(path: &Path) -> std::io::Result<String> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "not a regular file (a rule file must be a plain file)",
        ));
    }
    let bytes = std::fs::read(path)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let valid = std::str::from_utf8(&e.as_bytes()[..at]).unwrap_or("");
        let line = valid.matches('\n').count() + 1;
        let column = valid.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        Error::new(
            ErrorKind::InvalidData,
            format!(
                "invalid UTF-8 at byte {at} (line {line}, column {column}): byte 0x{:02x}",
                e.as_bytes()[at]
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_placed() {
        let dir = std::env::temp_dir().join(format!("grundy-src-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("bad.game");
        std::fs::write(&file, b"print 1\nprint \"a\xffb\"\n").unwrap();
        let e = read_source(&file).unwrap_err().to_string();
        assert_eq!(e, "invalid UTF-8 at byte 16 (line 2, column 9): byte 0xff");
        let e = read_source(&dir).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
