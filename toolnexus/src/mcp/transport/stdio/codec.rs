//! Splitting the incoming bytes into lines, bounded: a line within the bound is handed over
//! whole; a longer one is dropped as it arrives, and only its top-level `id` is kept, found
//! by a scan that holds a few bytes of state whatever the line's size.

use std::io;

use rmcp::model::RequestId;

use crate::mcp::transport::id::IdScan;
use tokio_util::bytes::{Buf, BytesMut};
use tokio_util::codec::Decoder;

/// One unit of input.
#[derive(Debug)]
pub(super) enum Frame {
    /// A line within the bound, without its `\n`.
    Line(BytesMut),
    /// A line longer than the bound, already dropped: its length and its top-level `id`.
    TooLong { len: usize, id: Option<RequestId> },
}

/// A [`Decoder`] of newline-delimited messages. All its state lives in the struct (and the
/// read buffer lives in the `FramedRead` around it), so a read cancelled at any point
/// loses nothing.
#[derive(Debug)]
pub(super) struct LineCodec {
    max: usize,
    /// How far the buffer has been searched for `\n` already.
    searched: usize,
    /// Set while an over-long line is being dropped.
    over: Option<(usize, IdScan)>,
}

impl LineCodec {
    pub(super) fn new(max: usize) -> Self {
        LineCodec {
            max,
            searched: 0,
            over: None,
        }
    }
}

impl Decoder for LineCodec {
    type Item = Frame;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        if let Some((len, scan)) = self.over.as_mut() {
            let newline = buf.iter().position(|b| *b == b'\n');
            let end = newline.unwrap_or(buf.len());
            scan.feed(&buf[..end]);
            *len += end;
            buf.advance(newline.map_or(end, |at| at + 1));
            if newline.is_none() {
                return Ok(None);
            }
            let (len, scan) = self.over.take().expect("set above");
            return Ok(Some(Frame::TooLong {
                len,
                id: scan.finish(),
            }));
        }
        match buf[self.searched..].iter().position(|b| *b == b'\n') {
            Some(at) => {
                let at = self.searched + at;
                self.searched = 0;
                let mut line = buf.split_to(at + 1);
                line.truncate(at);
                if at > self.max {
                    let mut scan = IdScan::default();
                    scan.feed(&line);
                    return Ok(Some(Frame::TooLong {
                        len: at,
                        id: scan.finish(),
                    }));
                }
                Ok(Some(Frame::Line(line)))
            }
            None if buf.len() > self.max => {
                // Past the bound without an end: scan what came and drop it.
                let mut scan = IdScan::default();
                scan.feed(buf);
                self.over = Some((buf.len(), scan));
                self.searched = 0;
                buf.clear();
                Ok(None)
            }
            None => {
                self.searched = buf.len();
                Ok(None)
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        if let Some(frame) = self.decode(buf)? {
            return Ok(Some(frame));
        }
        // A last line without a `\n` still counts.
        if let Some((len, scan)) = self.over.take() {
            return Ok(Some(Frame::TooLong {
                len,
                id: scan.finish(),
            }));
        }
        self.searched = 0;
        Ok((!buf.is_empty()).then(|| Frame::Line(buf.split())))
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::NumberOrString;

    use super::*;

    fn frames(codec: &mut LineCodec, input: &[u8], piece: usize) -> (Vec<Frame>, usize) {
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        let mut most = 0;
        for chunk in input.chunks(piece) {
            buf.extend_from_slice(chunk);
            most = most.max(buf.len());
            while let Some(frame) = codec.decode(&mut buf).unwrap() {
                out.push(frame);
            }
        }
        out.extend(codec.decode_eof(&mut buf).unwrap());
        (out, most)
    }

    fn too_long_id(frame: &Frame) -> Option<RequestId> {
        match frame {
            Frame::TooLong { id, .. } => id.clone(),
            Frame::Line(line) => panic!("a line within the bound: {} bytes", line.len()),
        }
    }

    #[test]
    fn an_over_long_line_keeps_its_id_wherever_it_is_and_nothing_else() {
        let pad = "x".repeat(300_000);
        let first = format!(r#"{{"id":"a\"b","method":"m","params":{{"p":"{pad}"}}}}"#);
        let last = format!(
            r#"{{"method":"m","params":{{"id":3,"p":"{pad}","q":{{"id":4}}}},"jsonrpc":"2.0","id":77}}"#
        );
        let absent = format!(r#"{{"method":"m","params":{{"id":3,"p":"{pad}"}}}}"#);
        let input = format!("{first}\n{last}\n{absent}\n{{\"id\":5}}");
        for piece in [1 << 20, 4096, 999] {
            let mut codec = LineCodec::new(64 * 1024);
            let (out, most) = frames(&mut codec, input.as_bytes(), piece);
            assert_eq!(out.len(), 4, "piece {piece}");
            assert_eq!(
                too_long_id(&out[0]),
                Some(NumberOrString::String("a\"b".into()))
            );
            assert_eq!(too_long_id(&out[1]), Some(NumberOrString::Number(77)));
            assert_eq!(too_long_id(&out[2]), None);
            assert!(matches!(&out[3], Frame::Line(line) if &line[..] == b"{\"id\":5}"));
            // Memory: the buffer never holds much more than the bound plus one piece.
            if piece < 64 * 1024 {
                assert!(most <= 64 * 1024 + piece, "held {most} bytes");
            }
        }
    }
}
