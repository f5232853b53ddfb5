//! Splitting the incoming bytes into lines, bounded: a line within the bound is handed over
//! whole; a longer one is dropped as it arrives, and only its top-level `id` is kept, found
//! by a scan that holds a few bytes of state whatever the line's size.

use std::io;

use rmcp::model::{NumberOrString, RequestId};
use tokio_util::bytes::{Buf, BytesMut};
use tokio_util::codec::Decoder;

/// The longest `id` value kept while scanning an over-long line; a longer one is not
/// trusted as an id (the line is answered with `"id": null`).
const MAX_ID_BYTES: usize = 1024;

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

/// Where an [`IdScan`] is in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Scanning {
    /// Between tokens.
    #[default]
    Outside,
    /// In a string; `key` while it may still be the top-level key `"id"` (its bytes so
    /// far are a prefix of `id`), with that many bytes seen.
    InString { escaped: bool, key: Option<u8> },
    /// After the top-level key `"id"`, before its `:`.
    AfterKey,
    /// After `"id":`, before the value.
    BeforeValue,
    /// In the value of the top-level `id`, a string (its bytes are kept).
    IdString { escaped: bool },
    /// In the value of the top-level `id`, a number (its bytes are kept).
    IdNumber,
    /// The id is found (or can no longer be): the rest of the text is skipped.
    Done,
}

/// A streaming search for the top-level `"id"` of a JSON object: tracks nesting depth and
/// strings, keeps only the bytes of the id's value (at most [`MAX_ID_BYTES`]). Lenient:
/// the text may be cut short or malformed elsewhere; only the id's own token has to be
/// well formed.
#[derive(Debug, Default)]
pub(crate) struct IdScan {
    state: Scanning,
    depth: usize,
    value: Vec<u8>,
    id: Option<RequestId>,
}

impl IdScan {
    /// Scans the next part of the text.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            let byte = bytes[i];
            i += 1;
            self.state = match self.state {
                Scanning::Done => return,
                Scanning::Outside => match byte {
                    b'{' | b'[' => {
                        self.depth += 1;
                        Scanning::Outside
                    }
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        Scanning::Outside
                    }
                    b'"' => Scanning::InString {
                        escaped: false,
                        key: (self.depth == 1).then_some(0),
                    },
                    _ => Scanning::Outside,
                },
                Scanning::InString { escaped: true, .. } => Scanning::InString {
                    escaped: false,
                    key: None,
                },
                Scanning::InString {
                    escaped: false,
                    key,
                } => match (byte, key) {
                    (b'"', Some(2)) => Scanning::AfterKey,
                    (b'"', _) => Scanning::Outside,
                    (b'\\', _) => Scanning::InString {
                        escaped: true,
                        key: None,
                    },
                    (b'i', Some(0)) => Scanning::InString {
                        escaped: false,
                        key: Some(1),
                    },
                    (b'd', Some(1)) => Scanning::InString {
                        escaped: false,
                        key: Some(2),
                    },
                    _ => {
                        // Skip to the end of the string or the next escape at once.
                        let rest = &bytes[i..];
                        let skip = rest
                            .iter()
                            .position(|b| *b == b'"' || *b == b'\\')
                            .unwrap_or(rest.len());
                        i += skip;
                        Scanning::InString {
                            escaped: false,
                            key: None,
                        }
                    }
                },
                Scanning::AfterKey => match byte {
                    b':' => Scanning::BeforeValue,
                    b if b.is_ascii_whitespace() => Scanning::AfterKey,
                    // A string value `"id"` followed by `,` or `}`: not the key.
                    _ => {
                        i -= 1;
                        Scanning::Outside
                    }
                },
                Scanning::BeforeValue => match byte {
                    b if b.is_ascii_whitespace() => Scanning::BeforeValue,
                    b'"' => {
                        self.value.push(b'"');
                        Scanning::IdString { escaped: false }
                    }
                    b'-' | b'0'..=b'9' => {
                        self.value.push(byte);
                        Scanning::IdNumber
                    }
                    // `null`, an object, an array: not an id a response can carry.
                    _ => Scanning::Done,
                },
                Scanning::IdString { escaped } => {
                    self.keep(byte);
                    match (byte, escaped) {
                        (b'"', false) => {
                            self.id = serde_json::from_slice::<String>(&self.value)
                                .ok()
                                .map(|text| NumberOrString::String(text.into()));
                            Scanning::Done
                        }
                        (b'\\', false) => Scanning::IdString { escaped: true },
                        _ => Scanning::IdString { escaped: false },
                    }
                }
                Scanning::IdNumber => match byte {
                    b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E' => {
                        self.keep(byte);
                        Scanning::IdNumber
                    }
                    _ => {
                        self.id = std::str::from_utf8(&self.value)
                            .ok()
                            .and_then(|text| text.parse().ok())
                            .map(NumberOrString::Number);
                        Scanning::Done
                    }
                },
            };
            if self.value.len() > MAX_ID_BYTES {
                self.value = Vec::new();
                self.state = Scanning::Done;
            }
        }
    }

    fn keep(&mut self, byte: u8) {
        self.value.push(byte);
    }

    /// The id found, if any. A number cut short by the end of the text is not trusted.
    pub(crate) fn finish(self) -> Option<RequestId> {
        self.id
    }
}

/// The top-level `id` of a whole text (see [`IdScan`]).
pub(crate) fn find_id(bytes: &[u8]) -> Option<RequestId> {
    let mut scan = IdScan::default();
    scan.feed(bytes);
    scan.finish()
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn the_scan_gives_the_same_id_however_the_text_is_split() {
        let texts: [(&[u8], Option<RequestId>); 6] = [
            (
                br#"{"jsonrpc":"2.0","params":{"id":9,"s":"}\"{"},"id":7}"#,
                Some(NumberOrString::Number(7)),
            ),
            (
                br#"{ "id" : -12 , "x": 1}"#,
                Some(NumberOrString::Number(-12)),
            ),
            (
                br#"{"a":"id","b":["id",{"id":1}],"id":"\u0041"}"#,
                Some(NumberOrString::String("A".into())),
            ),
            (br#"{"id":null,"method":"m"}"#, None),
            (br#"{"id":1.5}"#, None),
            (br#"{"idx":1,"xid":2}"#, None),
        ];
        for (text, expected) in texts {
            assert_eq!(find_id(text), expected, "{}", String::from_utf8_lossy(text));
            for at in 0..text.len() {
                let mut scan = IdScan::default();
                scan.feed(&text[..at]);
                scan.feed(&text[at..]);
                assert_eq!(scan.finish(), expected, "split at {at}");
            }
        }
    }
}
