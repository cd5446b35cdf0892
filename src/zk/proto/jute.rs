//! Jute binary primitives (org.apache.jute.BinaryOutputArchive / BinaryInputArchive): int and
//! long big-endian, bool one byte, buffer and ustring an int length then the bytes (-1 = null),
//! vector an int count (-1 = null) then the elements.

/// Why bytes could not be decoded. "Need more bytes" is not an error: frame splitting
/// returns `Ok(None)` for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The length prefix is negative or larger than the limit (MAX_FRAME, jute.maxbuffer).
    BadFrameLength(i64),
    /// The body ended before a field was complete.
    Truncated,
    /// Bytes were left over after the last field of a body.
    TrailingBytes(usize),
    /// A request header's op code this crate does not serve.
    UnknownOp(i32),
    /// A reply header's err (or a multi error result's) that is no known code.
    UnknownErrorCode(i32),
    /// A create's flags that name no node kind.
    UnknownCreateMode(i32),
    /// A watcher event's type that is no known one.
    UnknownEventType(i32),
    /// A watcher event's state that is no known one.
    UnknownKeeperState(i32),
    /// A multi entry of a type this crate does not serve (or not valid in a multi).
    UnknownMultiOp(i32),
    /// A checkWatches or removeWatches type that names no kind of watch.
    UnknownWatcherType(i32),
    /// An addWatch mode that names no kind of persistent watch.
    UnknownAddWatchMode(i32),
    /// A string or vector length that is negative (other than -1 = null) or past the body.
    BadLength(i32),
    /// A string that is not UTF-8.
    BadUtf8,
}

/// A jute record: a fixed sequence of fields with no framing of its own.
pub(super) trait Record: Sized {
    fn write(&self, w: &mut Writer);
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError>;
}

/// Builds one length-prefixed packet; the prefix is patched in by [`Writer::finish`], as
/// ZooKeeper does (it writes -1, then overwrites it with the body length).
pub(super) struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    pub(super) fn packet() -> Self {
        Writer { buf: vec![0; 4] }
    }

    /// The finished packet: length prefix, then the body.
    pub(super) fn finish(mut self) -> Vec<u8> {
        let len = wire_len(self.buf.len() - 4);
        self.buf[..4].copy_from_slice(&len.to_be_bytes());
        self.buf
    }

    pub(super) fn int(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    pub(super) fn long(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    pub(super) fn bool(&mut self, v: bool) {
        self.buf.push(u8::from(v));
    }

    pub(super) fn buffer(&mut self, v: &[u8]) {
        self.int(wire_len(v.len()));
        self.buf.extend_from_slice(v);
    }

    pub(super) fn ustring(&mut self, v: &str) {
        self.buffer(v.as_bytes());
    }

    pub(super) fn record(&mut self, v: &impl Record) {
        v.write(self);
    }

    pub(super) fn strings(&mut self, items: &[String]) {
        self.int(wire_len(items.len()));
        for item in items {
            self.ustring(item);
        }
    }

    pub(super) fn records<T: Record>(&mut self, items: &[T]) {
        self.int(wire_len(items.len()));
        for item in items {
            item.write(self);
        }
    }
}

/// Jute lengths are i32; a field of 2 GiB or more cannot be expressed and is a caller bug
/// (receivers reject anything past MAX_FRAME long before that).
fn wire_len(len: usize) -> i32 {
    i32::try_from(len).expect("jute field longer than i32::MAX bytes")
}

/// Reads fields off the front of a body; every read checks the bytes that remain, so no
/// input can make it panic or allocate more than the body holds.
pub(super) struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The bytes not yet read.
    pub(super) fn rest(self) -> &'a [u8] {
        self.buf
    }

    /// Ends a body: every byte must have been read.
    pub(super) fn finish(self) -> Result<(), DecodeError> {
        match self.buf.len() {
            0 => Ok(()),
            n => Err(DecodeError::TrailingBytes(n)),
        }
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let (head, tail) = self
            .buf
            .split_first_chunk::<N>()
            .ok_or(DecodeError::Truncated)?;
        self.buf = tail;
        Ok(*head)
    }

    pub(super) fn int(&mut self) -> Result<i32, DecodeError> {
        self.take().map(i32::from_be_bytes)
    }

    pub(super) fn long(&mut self) -> Result<i64, DecodeError> {
        self.take().map(i64::from_be_bytes)
    }

    /// Any non-zero byte is true, as java.io.DataInput.readBoolean reads it.
    pub(super) fn bool(&mut self) -> Result<bool, DecodeError> {
        self.take::<1>().map(|[b]| b != 0)
    }

    /// A buffer; null (-1) decodes as empty.
    pub(super) fn buffer(&mut self) -> Result<Vec<u8>, DecodeError> {
        self.bytes().map(<[u8]>::to_vec)
    }

    /// A ustring; null (-1) decodes as empty.
    pub(super) fn ustring(&mut self) -> Result<String, DecodeError> {
        let bytes = self.bytes()?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| DecodeError::BadUtf8)
    }

    fn bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let len = self.length()?;
        let (head, tail) = self.buf.split_at(len);
        self.buf = tail;
        Ok(head)
    }

    /// A length or count: -1 (null) is 0; it may not exceed the bytes left, since every
    /// byte or element takes at least one byte.
    fn length(&mut self) -> Result<usize, DecodeError> {
        let len = self.int()?;
        if len == -1 {
            return Ok(0);
        }
        match usize::try_from(len) {
            Ok(n) if n <= self.buf.len() => Ok(n),
            _ => Err(DecodeError::BadLength(len)),
        }
    }

    pub(super) fn record<T: Record>(&mut self) -> Result<T, DecodeError> {
        T::read(self)
    }

    /// A vector of ustrings; null decodes as empty.
    pub(super) fn strings(&mut self) -> Result<Vec<String>, DecodeError> {
        let count = self.length()?;
        (0..count).map(|_| self.ustring()).collect()
    }

    /// A vector of records; null decodes as empty.
    pub(super) fn records<T: Record>(&mut self) -> Result<Vec<T>, DecodeError> {
        let count = self.length()?;
        (0..count).map(|_| T::read(self)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(build: impl FnOnce(&mut Writer)) -> Vec<u8> {
        let mut w = Writer::packet();
        build(&mut w);
        w.finish()[4..].to_vec()
    }

    #[test]
    fn primitives_are_big_endian() {
        let bytes = body(|w| {
            w.int(-2);
            w.long(0x0102_0304_0506_0708);
            w.bool(true);
            w.bool(false);
        });
        assert_eq!(
            bytes,
            [0xff, 0xff, 0xff, 0xfe, 1, 2, 3, 4, 5, 6, 7, 8, 1, 0]
        );
        let mut r = Reader::new(&bytes);
        assert_eq!(r.int(), Ok(-2));
        assert_eq!(r.long(), Ok(0x0102_0304_0506_0708));
        assert_eq!(r.bool(), Ok(true));
        assert_eq!(r.bool(), Ok(false));
        assert_eq!(r.finish(), Ok(()));
    }

    #[test]
    fn finish_patches_the_length_prefix() {
        let mut w = Writer::packet();
        w.ustring("ab");
        assert_eq!(w.finish(), [0, 0, 0, 6, 0, 0, 0, 2, b'a', b'b']);
    }

    #[test]
    fn strings_and_vectors_are_length_prefixed() {
        let bytes = body(|w| w.strings(&["a".into(), String::new()]));
        assert_eq!(bytes, [0, 0, 0, 2, 0, 0, 0, 1, b'a', 0, 0, 0, 0]);
        assert_eq!(
            Reader::new(&bytes).strings(),
            Ok(vec!["a".into(), String::new()])
        );
    }

    #[test]
    fn null_buffer_string_and_vector_decode_as_empty() {
        let null = (-1i32).to_be_bytes();
        assert_eq!(Reader::new(&null).buffer(), Ok(vec![]));
        assert_eq!(Reader::new(&null).ustring(), Ok(String::new()));
        assert_eq!(Reader::new(&null).strings(), Ok(vec![]));
    }

    #[test]
    fn nonzero_bool_byte_reads_true() {
        assert_eq!(Reader::new(&[7]).bool(), Ok(true));
    }

    #[test]
    fn bad_lengths_are_rejected() {
        let minus_two = (-2i32).to_be_bytes();
        assert_eq!(
            Reader::new(&minus_two).buffer(),
            Err(DecodeError::BadLength(-2))
        );
        let past_end = [0, 0, 0, 3, b'a', b'b'];
        assert_eq!(
            Reader::new(&past_end).ustring(),
            Err(DecodeError::BadLength(3))
        );
        let huge_count = [0x7f, 0xff, 0xff, 0xff, 0];
        assert_eq!(
            Reader::new(&huge_count).strings(),
            Err(DecodeError::BadLength(i32::MAX))
        );
    }

    #[test]
    fn short_input_is_truncated_and_bad_utf8_is_rejected() {
        assert_eq!(Reader::new(&[0, 0, 1]).int(), Err(DecodeError::Truncated));
        assert_eq!(Reader::new(&[0; 7]).long(), Err(DecodeError::Truncated));
        assert_eq!(Reader::new(&[]).bool(), Err(DecodeError::Truncated));
        assert_eq!(
            Reader::new(&[0, 0, 0, 1, 0xff]).ustring(),
            Err(DecodeError::BadUtf8)
        );
    }

    #[test]
    fn finish_reports_trailing_bytes() {
        let mut r = Reader::new(&[0, 0, 0, 1, 9, 9]);
        assert_eq!(r.int(), Ok(1));
        assert_eq!(r.finish(), Err(DecodeError::TrailingBytes(2)));
    }
}
