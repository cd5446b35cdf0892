//! A server's incoming frames, read as bytes arrive: the length prefix is checked against
//! jute.maxbuffer before a byte of the body is awaited (ZooKeeper's `NIOServerCnxn.readLength`
//! closes the connection on a negative length or one past it), the buffer grows only with
//! the bytes that arrive, and each byte moves at most once however many frames a read holds.

use super::jute::DecodeError;
use super::packet::split_frame_within;

/// ZooKeeper's default jute.maxbuffer (`BinaryInputArchive.maxBuffer`, 0xfffff): the
/// longest frame body a 3.8 server accepts.
pub const JUTE_MAXBUFFER: usize = 0xfffff;

/// One connection's frames: read into [`buffer`](Self::buffer), then take
/// [`next_frame`](Self::next_frame) until it has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameReader {
    /// Bytes read; those from `pos` on are not framed yet.
    buf: Vec<u8>,
    pos: usize,
    max_len: usize,
}

impl FrameReader {
    /// A reader that refuses frame bodies longer than `max_len` (jute.maxbuffer).
    pub fn new(max_len: usize) -> FrameReader {
        FrameReader {
            buf: Vec::new(),
            pos: 0,
            max_len,
        }
    }

    /// The buffer to append a read to. Frames already taken are dropped first, so what
    /// stays is at most one unfinished frame.
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        self.buf.drain(..self.pos);
        self.pos = 0;
        &mut self.buf
    }

    /// The next whole frame's body; `Ok(None)` until one has arrived; an error for a length
    /// that is negative or past the limit (the connection is to be closed).
    pub fn next_frame(&mut self) -> Result<Option<&[u8]>, DecodeError> {
        let pending = self.buf.get(self.pos..).unwrap_or_default();
        let Some((_, consumed)) = split_frame_within(pending, self.max_len)? else {
            return Ok(None);
        };
        let start = self.pos + 4;
        self.pos += consumed;
        Ok(self.buf.get(start..self.pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut out = (body.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(body);
        out
    }

    fn read_all(reader: &mut FrameReader) -> Result<Vec<Vec<u8>>, DecodeError> {
        let mut frames = Vec::new();
        while let Some(body) = reader.next_frame()? {
            frames.push(body.to_vec());
        }
        Ok(frames)
    }

    #[test]
    fn frames_split_anywhere_come_out_whole() {
        let bodies: Vec<Vec<u8>> = (0..50u8).map(|n| vec![n; usize::from(n)]).collect();
        let stream: Vec<u8> = bodies.iter().flat_map(|b| frame(b)).collect();
        for piece in [1, 3, 4, 7, 1000, stream.len()] {
            let mut reader = FrameReader::new(JUTE_MAXBUFFER);
            let mut got = Vec::new();
            for chunk in stream.chunks(piece) {
                reader.buffer().extend_from_slice(chunk);
                got.extend(read_all(&mut reader).unwrap());
                // Only the unfinished frame stays behind.
                assert!(reader.buffer().len() < 4 + 50, "pieces of {piece}");
            }
            assert_eq!(got, bodies, "pieces of {piece}");
        }
    }

    #[test]
    fn lengths_past_the_limit_or_negative_are_refused_before_the_body() {
        let mut reader = FrameReader::new(JUTE_MAXBUFFER);
        reader
            .buffer()
            .extend_from_slice(&(JUTE_MAXBUFFER as u32).to_be_bytes());
        // The longest body waits for its bytes.
        assert_eq!(reader.next_frame(), Ok(None));
        let mut reader = FrameReader::new(JUTE_MAXBUFFER);
        reader
            .buffer()
            .extend_from_slice(&(JUTE_MAXBUFFER as u32 + 1).to_be_bytes());
        assert_eq!(
            reader.next_frame(),
            Err(DecodeError::BadFrameLength(0x100000))
        );
        let mut reader = FrameReader::new(JUTE_MAXBUFFER);
        reader.buffer().extend_from_slice(&(-5i32).to_be_bytes());
        assert_eq!(reader.next_frame(), Err(DecodeError::BadFrameLength(-5)));
        // A smaller limit, after good frames.
        let mut reader = FrameReader::new(8);
        reader
            .buffer()
            .extend([frame(b"12345678"), frame(b"123456789")].concat());
        assert_eq!(reader.next_frame(), Ok(Some(&b"12345678"[..])));
        assert_eq!(reader.next_frame(), Err(DecodeError::BadFrameLength(9)));
    }
}
