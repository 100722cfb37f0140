//! Value files of long runs: one header line naming the code, then the
//! values of heaps 0, 1, 2, ... as 16-bit little-endian integers. A run
//! appends whole chunks, so an interrupted run resumes from the last one.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::code::Code;

fn header(code: &Code) -> String {
    format!("grundy take-and-break values u16le code={code}\n")
}

/// An open value file, positioned for appending.
pub struct ValueFile {
    file: File,
}

impl ValueFile {
    /// Opens (or creates) the file for `code`, returning the values it holds.
    /// A file written for another code is an error.
    pub fn open(path: &Path, code: &Code) -> io::Result<(ValueFile, Vec<u16>)> {
        let expected = header(code);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        if file.metadata()?.len() == 0 {
            file.write_all(expected.as_bytes())?;
            return Ok((ValueFile { file }, Vec::new()));
        }
        let mut reader = BufReader::new(&mut file);
        let mut first = String::new();
        reader.read_line(&mut first)?;
        if first != expected {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} is not a value file of {code} (its first line is {:?})",
                    path.display(),
                    first.trim_end()
                ),
            ));
        }
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        // A half-written value at the end (an interrupted write) is dropped.
        let whole = bytes.len() / 2 * 2;
        let values = bytes[..whole]
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        let end = (expected.len() + whole) as u64;
        file.set_len(end)?;
        file.seek(SeekFrom::Start(end))?;
        Ok((ValueFile { file }, values))
    }

    pub fn append(&mut self, values: &[u16]) -> io::Result<()> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.file.write_all(&bytes)?;
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_other_codes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        let code = Code::parse("0.16").unwrap();
        let (mut f, old) = ValueFile::open(&path, &code).unwrap();
        assert!(old.is_empty());
        f.append(&[0, 1, 1, 300]).unwrap();
        drop(f);
        // A torn last value is dropped.
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(&[7])
            .unwrap();
        let (_, old) = ValueFile::open(&path, &code).unwrap();
        assert_eq!(old, [0, 1, 1, 300]);
        assert!(ValueFile::open(&path, &Code::parse("0.137").unwrap()).is_err());
    }
}
