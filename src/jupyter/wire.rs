//! The wire format of a Jupyter message on ZeroMQ (messaging protocol 5.3,
//! "The Wire Protocol"): routing identities, the `<IDS|MSG>` delimiter, the
//! HMAC-SHA256 signature of the four JSON frames (header, parent header,
//! metadata, content), those frames, then binary buffers.

use bytes::Bytes;
use hmac::{Hmac, KeyInit, Mac};
use jupyter_protocol::JupyterMessage;
use serde_json::{json, Value};
use sha2::Sha256;

const DELIMITER: &[u8] = b"<IDS|MSG>";

/// Signs and checks messages with the connection file's key. An empty key
/// means no signing, as the spec says.
#[derive(Clone)]
pub struct Signer {
    key: Vec<u8>,
}

/// Why a received message was dropped.
#[derive(Debug, PartialEq, Eq)]
pub enum WireError {
    NoDelimiter,
    TooFewFrames,
    BadSignature,
    BadJson(String),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::NoDelimiter => write!(f, "no <IDS|MSG> delimiter"),
            WireError::TooFewFrames => write!(f, "fewer than the four JSON frames"),
            WireError::BadSignature => write!(f, "the signature does not match"),
            WireError::BadJson(e) => write!(f, "a frame is not a message: {e}"),
        }
    }
}

impl Signer {
    pub fn new(key: &str) -> Signer {
        Signer {
            key: key.as_bytes().to_vec(),
        }
    }

    fn mac(&self, frames: &[&[u8]]) -> Option<Hmac<Sha256>> {
        if self.key.is_empty() {
            return None;
        }
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key).ok()?;
        for f in frames {
            mac.update(f);
        }
        Some(mac)
    }

    /// The hex signature of the four JSON frames ("" without a key).
    pub fn sign(&self, frames: &[&[u8]]) -> String {
        match self.mac(frames) {
            Some(mac) => hex(&mac.finalize().into_bytes()),
            None => String::new(),
        }
    }

    /// Whether `signature` (hex) signs the frames; in constant time.
    pub fn verify(&self, frames: &[&[u8]], signature: &[u8]) -> bool {
        match self.mac(frames) {
            None => true,
            Some(mac) => {
                let Some(raw) = unhex(signature) else {
                    return false;
                };
                mac.verify_slice(&raw).is_ok()
            }
        }
    }

    /// The frames of a message: its routing identities (or, on iopub, the
    /// topic), the delimiter, the signature, the JSON frames, the buffers.
    pub fn encode(&self, msg: &JupyterMessage) -> Vec<Bytes> {
        let header = to_vec(&msg.header);
        let parent = match &msg.parent_header {
            Some(p) => to_vec(p),
            None => b"{}".to_vec(),
        };
        let metadata = to_vec(&msg.metadata);
        let content = to_vec(&msg.content);
        let signature = self.sign(&[&header, &parent, &metadata, &content]);
        let mut frames: Vec<Bytes> = msg.zmq_identities.clone();
        frames.push(Bytes::from_static(DELIMITER));
        frames.push(Bytes::from(signature));
        for f in [header, parent, metadata, content] {
            frames.push(Bytes::from(f));
        }
        frames.extend(msg.buffers.iter().cloned());
        frames
    }

    /// The message in `frames`, with its identities kept for the reply.
    pub fn decode(&self, frames: Vec<Bytes>) -> Result<JupyterMessage, WireError> {
        let at = frames
            .iter()
            .position(|f| f.as_ref() == DELIMITER)
            .ok_or(WireError::NoDelimiter)?;
        if frames.len() < at + 6 {
            return Err(WireError::TooFewFrames);
        }
        let json_frames: Vec<&[u8]> = frames[at + 2..at + 6].iter().map(|f| f.as_ref()).collect();
        if !self.verify(&json_frames, &frames[at + 1]) {
            return Err(WireError::BadSignature);
        }
        let parse = |b: &[u8]| -> Result<Value, WireError> {
            serde_json::from_slice(b).map_err(|e| WireError::BadJson(e.to_string()))
        };
        let header = parse(json_frames[0])?;
        let mut content = parse(json_frames[3])?;
        if header["msg_type"] == "history_request" {
            super::history::fill_defaults(&mut content);
        }
        let value = json!({
            "header": header,
            "parent_header": parse(json_frames[1])?,
            "metadata": parse(json_frames[2])?,
            "content": content,
        });
        let msg =
            JupyterMessage::from_value(value).map_err(|e| WireError::BadJson(e.to_string()))?;
        Ok(msg
            .with_zmq_identities(frames[..at].to_vec())
            .with_buffers(frames[at + 6..].to_vec()))
    }
}

fn to_vec<T: serde::Serialize + ?Sized>(v: &T) -> Vec<u8> {
    // Our own types always serialise; an empty object keeps the frame valid.
    serde_json::to_vec(v).unwrap_or_else(|_| b"{}".to_vec())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jupyter_protocol::{ExecuteRequest, JupyterMessageContent};

    #[test]
    fn hmac_sha256_matches_rfc_4231_case_2() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
        let s = Signer::new("Jefe");
        assert_eq!(
            s.sign(&[b"what do ya want ", b"for nothing?"]),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_message_round_trips_and_a_changed_frame_is_refused() {
        let s = Signer::new("secret");
        let msg = JupyterMessage::new(ExecuteRequest::new("sg(Heap(3))".into()), None)
            .with_zmq_identities(vec![Bytes::from_static(b"client")]);
        let frames = s.encode(&msg);
        assert_eq!(frames[0].as_ref(), b"client");
        assert_eq!(frames[1].as_ref(), DELIMITER);
        let back = s.decode(frames.clone()).unwrap();
        assert_eq!(back.zmq_identities, vec![Bytes::from_static(b"client")]);
        match back.content {
            JupyterMessageContent::ExecuteRequest(r) => assert_eq!(r.code, "sg(Heap(3))"),
            other => panic!("{other:?}"),
        }
        let mut tampered = frames.clone();
        tampered[6] = Bytes::from_static(b"{\"code\": \"1\"}");
        assert_eq!(s.decode(tampered).unwrap_err(), WireError::BadSignature);
        assert!(Signer::new("other").decode(frames).is_err());
    }

    #[test]
    fn a_history_request_may_leave_out_its_limits() {
        // What jupyter_client sends for a search without `n` or `unique`.
        let s = Signer::new("k");
        let header = br#"{"msg_id":"1","username":"u","session":"s","date":"2026-01-01T00:00:00Z","msg_type":"history_request","version":"5.3"}"#;
        let content = br#"{"hist_access_type":"search","pattern":"sg*","raw":true,"output":false}"#;
        let json: [&[u8]; 4] = [header, b"{}", b"{}", content];
        let mut frames = vec![
            Bytes::from_static(DELIMITER),
            Bytes::from(s.sign(&json).into_bytes()),
        ];
        frames.extend(json.iter().map(|f| Bytes::copy_from_slice(f)));
        match s.decode(frames).unwrap().content {
            JupyterMessageContent::HistoryRequest(jupyter_protocol::HistoryRequest::Search {
                pattern,
                unique,
                n,
                ..
            }) => assert_eq!((pattern.as_str(), unique, n), ("sg*", false, i32::MAX)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn without_a_key_nothing_is_signed() {
        let s = Signer::new("");
        assert_eq!(s.sign(&[b"x"]), "");
        assert!(s.verify(&[b"x"], b""));
    }

    #[test]
    fn short_or_undelimited_messages_are_refused() {
        let s = Signer::new("k");
        assert_eq!(
            s.decode(vec![Bytes::from_static(b"x")]).unwrap_err(),
            WireError::NoDelimiter
        );
        let short = vec![Bytes::from_static(DELIMITER), Bytes::from_static(b"")];
        assert_eq!(s.decode(short).unwrap_err(), WireError::TooFewFrames);
    }
}
