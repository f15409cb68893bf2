//! A ZIP archive written as a stream (PKWARE APPNOTE 6.3, the parts every unzip reads): each
//! file stored as it is (press files are compressed PDFs already), its header made from the
//! whole file so no data descriptor is needed, then the central directory. The caller sends
//! each piece as it is made, so the archive is never held in memory, only the file being
//! added. Without ZIP64 an archive holds less than 4 GiB and 65,535 files: [`ZipWriter::fits`]
//! says so before anything is sent.

/// Where one file is, for the central directory.
struct Entry {
    name: String,
    crc: u32,
    size: u32,
    offset: u32,
}

/// The archive being written: what is sent so far.
pub struct ZipWriter {
    entries: Vec<Entry>,
    offset: u64,
    /// MS-DOS time and date of every file (the archive's time).
    dos_time: u16,
    dos_date: u16,
}

/// Most bytes before the central directory (its offset is 32 bits).
const MAX_OFFSET: u64 = u32::MAX as u64;

/// Bytes of a local header without its name, and of a central-directory entry.
const LOCAL_HEADER: u64 = 30;
const CENTRAL_ENTRY: u64 = 46;
const END_RECORD: u64 = 22;

/// Version 2.0 (stored files, directories); flag bit 11: names are UTF-8.
const VERSION: u16 = 20;
const UTF8_NAMES: u16 = 1 << 11;

impl ZipWriter {
    /// An archive whose files are dated `unix_seconds` (UTC).
    pub fn new(unix_seconds: u64) -> ZipWriter {
        let (dos_time, dos_date) = dos_time_and_date(unix_seconds);
        ZipWriter {
            entries: Vec::new(),
            offset: 0,
            dos_time,
            dos_date,
        }
    }

    /// Whether files of these `(name length, size)` fit in one archive.
    pub fn fits(files: impl IntoIterator<Item = (usize, u64)>) -> bool {
        let (mut count, mut bytes, mut directory) = (0u64, 0u64, 0u64);
        for (name, size) in files {
            count += 1;
            bytes += LOCAL_HEADER + name as u64 + size;
            directory += CENTRAL_ENTRY + name as u64;
        }
        count <= u64::from(u16::MAX) && bytes + directory + END_RECORD <= MAX_OFFSET
    }

    /// The local header of file `name` holding `data`: send it, then `data`.
    pub fn header(&mut self, name: &str, data: &[u8]) -> Result<Vec<u8>, String> {
        let too_large = || format!("{name}: the archive would pass 4 GiB");
        let size = u32::try_from(data.len()).map_err(|_| too_large())?;
        let offset = u32::try_from(self.offset).map_err(|_| too_large())?;
        if self.entries.len() >= usize::from(u16::MAX) {
            return Err(format!("{name}: an archive holds at most 65535 files"));
        }
        let crc = crc32fast::hash(data);
        let mut header = Vec::with_capacity(LOCAL_HEADER as usize + name.len());
        put32(&mut header, 0x0403_4b50);
        for value in [VERSION, UTF8_NAMES, 0, self.dos_time, self.dos_date] {
            put16(&mut header, value);
        }
        for value in [crc, size, size] {
            put32(&mut header, value);
        }
        put16(&mut header, name.len() as u16);
        put16(&mut header, 0);
        header.extend_from_slice(name.as_bytes());
        self.offset += header.len() as u64 + u64::from(size);
        self.entries.push(Entry {
            name: name.to_owned(),
            crc,
            size,
            offset,
        });
        Ok(header)
    }

    /// The central directory and the end record: the archive's last bytes.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        let start = u32::try_from(self.offset).map_err(|_| "the archive passes 4 GiB")?;
        let mut tail = Vec::new();
        for entry in &self.entries {
            put32(&mut tail, 0x0201_4b50);
            for value in [
                VERSION,
                VERSION,
                UTF8_NAMES,
                0,
                self.dos_time,
                self.dos_date,
            ] {
                put16(&mut tail, value);
            }
            for value in [entry.crc, entry.size, entry.size] {
                put32(&mut tail, value);
            }
            // Name length; no extra field, comment, disk number or attributes.
            for value in [entry.name.len() as u16, 0, 0, 0, 0] {
                put16(&mut tail, value);
            }
            put32(&mut tail, 0);
            put32(&mut tail, entry.offset);
            tail.extend_from_slice(entry.name.as_bytes());
        }
        let directory = tail.len() as u32;
        let count = self.entries.len() as u16;
        put32(&mut tail, 0x0605_4b50);
        for value in [0, 0, count, count] {
            put16(&mut tail, value);
        }
        put32(&mut tail, directory);
        put32(&mut tail, start);
        put16(&mut tail, 0);
        Ok(tail)
    }
}

fn put16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// MS-DOS time (2-second steps) and date (from 1980) of `unix_seconds`, UTC.
fn dos_time_and_date(unix_seconds: u64) -> (u16, u16) {
    let time = i64::try_from(unix_seconds)
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let year = time.year().clamp(1980, 2107) as u16;
    let date =
        ((year - 1980) << 9) | (u16::from(u8::from(time.month())) << 5) | u16::from(time.day());
    let clock = (u16::from(time.hour()) << 11)
        | (u16::from(time.minute()) << 5)
        | (u16::from(time.second()) / 2);
    (clock, date)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dos_dates_count_from_1980() {
        // 2026-12-05 13:45:30 UTC
        assert_eq!(
            dos_time_and_date(1_796_478_330),
            ((13 << 11) | (45 << 5) | 15, (46 << 9) | (12 << 5) | 5)
        );
        assert_eq!(
            dos_time_and_date(0).1,
            (1 << 5) | 1,
            "before 1980: 1980-01-01"
        );
    }

    #[test]
    fn the_end_record_points_at_the_directory() {
        let mut zip = ZipWriter::new(0);
        let header = zip.header("a.txt", b"hello").unwrap();
        assert_eq!(header.len(), 30 + 5);
        let tail = zip.finish().unwrap();
        let end = &tail[tail.len() - 22..];
        assert_eq!(&end[..4], &0x0605_4b50u32.to_le_bytes());
        assert_eq!(
            u32::from_le_bytes(end[16..20].try_into().unwrap()),
            40,
            "after the file"
        );
        assert!(ZipWriter::fits([(10, 1 << 20)]));
        assert!(!ZipWriter::fits([(10, u64::from(u32::MAX))]));
    }
}
