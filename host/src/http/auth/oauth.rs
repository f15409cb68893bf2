//! OAuth 1.0a (RFC 5849) two-legged signatures: reading the protocol parameters, the
//! signature base string (section 3.4.1) and HMAC-SHA1 / HMAC-SHA256 verification.
//!
//! Verification is on the path of every signed call, so nothing here copies the request:
//! parameters are borrowed from it (decoded only where they hold escapes), and the base
//! string is written piece by piece straight into the HMAC instead of being built.

use std::borrow::Cow;
use std::cmp::Ordering;

use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use percent_encoding::percent_decode_str;

use crate::domain::error::{DomainError, ErrorCode};

/// Longest `Authorization` header read.
const MAX_HEADER: usize = 4096;

/// Longest `oauth_signature` read, in base64 characters: an HMAC-SHA256 takes 44.
const MAX_SIGNATURE_BASE64: usize = 64;

/// A name or value as the request carries it, percent-decoded: borrowed from the request
/// unless decoding changed it.
pub type Text<'a> = Cow<'a, str>;

/// Bytes RFC 3986 section 2.3 leaves unencoded: ALPHA, DIGIT and `-._~`.
fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Writes `text` percent-encoded (RFC 3986 section 2.3, upper-case hex of the UTF-8 bytes)
/// to `out`; `twice` encodes the result again, as the base string does with parameters
/// (only the `%` of each escape changes, to `%25`).
fn write_encoded(out: &mut dyn FnMut(&[u8]), text: &str, twice: bool) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = text.as_bytes();
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if unreserved(b) {
            continue;
        }
        out(&bytes[run..i]);
        let (hi, lo) = (HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]);
        if twice {
            out(&[b'%', b'2', b'5', hi, lo]);
        } else {
            out(&[b'%', hi, lo]);
        }
        run = i + 1;
    }
    out(&bytes[run..]);
}

/// The order of two strings' percent-encodings, without encoding them: an escape starts
/// with `%`, which sorts before every unreserved byte, and its hex digits sort as the byte
/// they encode.
fn encoded_order(a: &str, b: &str) -> Ordering {
    let rank = |b: u8| (u16::from(unreserved(b)) << 8) | u16::from(b);
    a.bytes().map(rank).cmp(b.bytes().map(rank))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureMethod {
    HmacSha1,
    HmacSha256,
}

/// The protocol parameters of a signed request, borrowed from it where they can be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protocol<'a> {
    pub consumer_key: Text<'a>,
    pub signature_method: SignatureMethod,
    pub signature: Signature,
    pub timestamp: u64,
    pub nonce: Text<'a>,
    /// Parameters from the `Authorization` header that are part of the base string.
    pub header_parameters: Vec<(Text<'a>, Text<'a>)>,
}

/// A decoded `oauth_signature`, at most [`MAX_SIGNATURE_BASE64`] characters' worth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    bytes: [u8; MAX_SIGNATURE_BASE64 / 4 * 3],
    len: usize,
}

impl Signature {
    fn decode(base64: &str) -> Result<Signature, DomainError> {
        if base64.len() > MAX_SIGNATURE_BASE64 {
            return Err(invalid(format!(
                "oauth_signature: longer than {MAX_SIGNATURE_BASE64} characters; an HMAC-SHA1 \
                 signature takes 28 and an HMAC-SHA256 one 44"
            )));
        }
        let mut bytes = [0; MAX_SIGNATURE_BASE64 / 4 * 3];
        let len = base64::engine::general_purpose::STANDARD
            .decode_slice(base64, &mut bytes)
            .map_err(|_| invalid("oauth_signature: not base64"))?;
        Ok(Signature { bytes, len })
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

fn invalid(message: impl Into<String>) -> DomainError {
    DomainError::new(ErrorCode::InvalidOauthParameters, message)
}

/// Parses `OAuth realm="x", oauth_consumer_key="k", ...` into decoded name/value pairs;
/// `None` if the header is not an OAuth one.
pub fn parse_authorization(header: &str) -> Result<Option<Vec<(Text<'_>, Text<'_>)>>, DomainError> {
    let Some(rest) = header
        .get(..6)
        .filter(|scheme| scheme.eq_ignore_ascii_case("OAuth "))
        .map(|_| &header[6..])
    else {
        return Ok(None);
    };
    if header.len() > MAX_HEADER {
        return Err(invalid(format!(
            "Authorization: longer than {MAX_HEADER} bytes"
        )));
    }
    let decode = |s| {
        percent_decode_str(s)
            .decode_utf8()
            .map_err(|_| invalid("Authorization: a value is not UTF-8 once decoded"))
    };
    let mut pairs = Vec::with_capacity(8);
    for item in rest
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
    {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| invalid(format!("Authorization: {item:?} is not name=\"value\"")))?;
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .ok_or_else(|| invalid(format!("Authorization: the value of {name} must be quoted")))?;
        pairs.push((decode(name.trim())?, decode(value)?));
    }
    Ok(Some(pairs))
}

impl<'a> Protocol<'a> {
    /// Reads the protocol parameters from the header pairs, or else from the request
    /// parameters (`get` looks one up). Checks their form, not the signature.
    pub fn read(
        header: Option<Vec<(Text<'a>, Text<'a>)>>,
        get: impl Fn(&str) -> Option<&'a str>,
    ) -> Result<Protocol<'a>, DomainError> {
        let from_header = header.is_some();
        let mut header_parameters = header.unwrap_or_default();
        header_parameters.retain(|(name, _)| name != "realm");
        if header_parameters
            .iter()
            .any(|(name, _)| get(name).is_some())
        {
            return Err(invalid(
                "oauth_* parameters are in both the Authorization header and the request; send them in one place",
            ));
        }
        // The signature is not part of the base string: taken out of the header's pairs.
        let signature = match header_parameters
            .iter()
            .position(|(name, _)| name == "oauth_signature")
        {
            Some(at) => Some(header_parameters.swap_remove(at).1),
            None if from_header => None,
            None => get("oauth_signature").map(Cow::Borrowed),
        };
        let value = |name: &str| -> Option<Text<'a>> {
            if from_header {
                header_parameters
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
            } else {
                get(name).map(Cow::Borrowed)
            }
        };
        let required = |name: &str, value: Option<Text<'a>>| {
            value
                .filter(|v| !v.is_empty())
                .ok_or_else(|| invalid(format!("{name}: this OAuth parameter is required")))
        };
        let consumer_key = required("oauth_consumer_key", value("oauth_consumer_key"))?;
        let signature_method = match &*required(
            "oauth_signature_method",
            value("oauth_signature_method"),
        )? {
            "HMAC-SHA1" => SignatureMethod::HmacSha1,
            "HMAC-SHA256" => SignatureMethod::HmacSha256,
            other => {
                return Err(invalid(format!(
                    "oauth_signature_method: {other:?} is not supported; use HMAC-SHA1 or HMAC-SHA256"
                )));
            }
        };
        let signature = Signature::decode(&required("oauth_signature", signature)?)?;
        let timestamp = required("oauth_timestamp", value("oauth_timestamp"))?
            .parse()
            .map_err(|_| {
                invalid("oauth_timestamp: expected seconds since 1970 as a whole number")
            })?;
        let nonce = required("oauth_nonce", value("oauth_nonce"))?;
        if nonce.len() > 128 {
            return Err(invalid("oauth_nonce: at most 128 characters"));
        }
        if let Some(version) = value("oauth_version")
            && version != "1.0"
        {
            return Err(invalid(format!(
                "oauth_version: must be 1.0, got {version:?}"
            )));
        }
        if value("oauth_token").is_some_and(|token| !token.is_empty()) {
            return Err(invalid(
                "oauth_token: must be empty or absent; Presspack uses two-legged OAuth",
            ));
        }
        Ok(Protocol {
            consumer_key,
            signature_method,
            signature,
            timestamp,
            nonce,
            header_parameters,
        })
    }
}

/// Writes the signature base string (RFC 5849 section 3.4.1) to `out`. `base_uri` is in
/// pieces, written one after the other; `parameters` are the query and form-body pairs as
/// received (decoded) plus the header's protocol parameters; `oauth_signature` is left out.
pub fn write_base_string<'p>(
    out: &mut dyn FnMut(&[u8]),
    http_method: &str,
    base_uri: &[&str],
    parameters: impl Iterator<Item = (&'p str, &'p str)>,
) {
    let mut sorted: Vec<(&str, &str)> = parameters
        .filter(|(name, _)| *name != "oauth_signature")
        .collect();
    sorted.sort_unstable_by(|a, b| encoded_order(a.0, b.0).then_with(|| encoded_order(a.1, b.1)));
    for b in http_method.bytes() {
        out(&[b.to_ascii_uppercase()]);
    }
    out(b"&");
    for piece in base_uri {
        write_encoded(out, piece, false);
    }
    out(b"&");
    for (i, (name, value)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out(b"%26");
        }
        write_encoded(out, name, true);
        out(b"%3D");
        write_encoded(out, value, true);
    }
}

/// Whether `signature` is the HMAC of the base string `write_base` writes, under the
/// consumer secret (and an empty token secret), compared in constant time.
pub fn verify(
    method: SignatureMethod,
    consumer_secret: &str,
    signature: &Signature,
    write_base: impl FnOnce(&mut dyn FnMut(&[u8])),
) -> bool {
    let mut key = Vec::with_capacity(consumer_secret.len() + 1);
    write_encoded(
        &mut |piece| key.extend_from_slice(piece),
        consumer_secret,
        false,
    );
    key.push(b'&');
    match method {
        SignatureMethod::HmacSha1 => mac_matches::<Hmac<sha1::Sha1>>(&key, signature, write_base),
        SignatureMethod::HmacSha256 => {
            mac_matches::<Hmac<sha2::Sha256>>(&key, signature, write_base)
        }
    }
}

fn mac_matches<M: Mac + KeyInit>(
    key: &[u8],
    signature: &Signature,
    write_base: impl FnOnce(&mut dyn FnMut(&[u8])),
) -> bool {
    let mut mac = <M as KeyInit>::new_from_slice(key).expect("HMAC takes any key");
    write_base(&mut |piece| Mac::update(&mut mac, piece));
    mac.verify_slice(signature.as_bytes()).is_ok()
}

/// Whether signatures are checked. Only [`SignatureCheck::Verify`] is reachable from the
/// configuration; the other exists so the benchmark can measure what verification costs
/// against the same server doing everything else (`Application::build_for_benchmark`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureCheck {
    Verify,
    /// Trust the key named by `oauth_consumer_key` without signature, timestamp or nonce.
    TrustConsumerKey,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base_string<'p>(
        http_method: &str,
        base_uri: &str,
        parameters: impl Iterator<Item = (&'p str, &'p str)>,
    ) -> String {
        let mut written = Vec::new();
        write_base_string(
            &mut |piece| written.extend_from_slice(piece),
            http_method,
            &[base_uri],
            parameters,
        );
        String::from_utf8(written).unwrap()
    }

    fn encode(text: &str, twice: bool) -> String {
        let mut written = Vec::new();
        write_encoded(&mut |piece| written.extend_from_slice(piece), text, twice);
        String::from_utf8(written).unwrap()
    }

    fn sign(key: &[u8], base: &str) -> Signature {
        let mut mac = Hmac::<sha1::Sha1>::new_from_slice(key).unwrap();
        mac.update(base.as_bytes());
        let base64 = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
        Signature::decode(&base64).unwrap()
    }

    /// RFC 5849 section 3.4.1.1: the example request, its base string, and (section 1.2
    /// style) a signature computed for it with a known secret.
    #[test]
    fn rfc_5849_example_base_string() {
        // POST /request?b5=%3D%253D&a3=a&c%40=&a2=r%20b with form body c2&a3=2+q and header
        // oauth_consumer_key="9djdj82h48djs9d2", oauth_token="kkk9d7dh3k39sjv7",
        // oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131201", oauth_nonce="7d8f3e4a".
        let query = form_urlencoded::parse(b"b5=%3D%253D&a3=a&c%40=&a2=r%20b").into_owned();
        let body = form_urlencoded::parse(b"c2&a3=2+q").into_owned();
        let header = parse_authorization(
            r#"OAuth realm="Example", oauth_consumer_key="9djdj82h48djs9d2", oauth_token="kkk9d7dh3k39sjv7", oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131201", oauth_nonce="7d8f3e4a", oauth_signature="djosJKDKJSD8743243%2Fjdk33klY%3D""#,
        )
        .unwrap()
        .unwrap();
        let pairs: Vec<(String, String)> = query
            .chain(body)
            .chain(
                header
                    .into_iter()
                    .filter(|(n, _)| n != "realm")
                    .map(|(n, v)| (n.into_owned(), v.into_owned())),
            )
            .collect();
        let base = base_string(
            "post",
            "http://example.com/request",
            pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())),
        );
        assert_eq!(
            base,
            "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q\
             %26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_\
             key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_m\
             ethod%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk\
             9d7dh3k39sjv7"
        );
    }

    /// RFC 5849 section 1.2's worked example (three-legged, so the HMAC key has the token
    /// secret and is built here by hand): its base string and published signature.
    #[test]
    fn rfc_5849_section_1_2_signature() {
        let header = parse_authorization(
            r#"OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="nnch734d00sl2jdk", oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131202", oauth_nonce="chapoH", oauth_signature="MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D""#,
        )
        .unwrap()
        .unwrap();
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(b"file=vacation.jpg&size=original")
                .into_owned()
                .chain(
                    header
                        .into_iter()
                        .filter(|(n, _)| n != "realm")
                        .map(|(n, v)| (n.into_owned(), v.into_owned())),
                )
                .collect();
        let base = base_string(
            "GET",
            "http://photos.example.net/photos",
            pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())),
        );
        assert_eq!(
            base,
            "GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26oauth_consumer_key\
             %3Ddpf43f3p2l4k3l03%26oauth_nonce%3DchapoH%26oauth_signature_method%3DHMAC-SHA1\
             %26oauth_timestamp%3D137131202%26oauth_token%3Dnnch734d00sl2jdk%26size%3Doriginal"
        );
        let signature = sign(b"kd94hf93k423kf44&pfkkdhi9sl3r4s00", &base);
        assert_eq!(
            signature,
            Signature::decode("MdpQcU8iPSUjWoN/UDMsK2sui9I=").unwrap()
        );
    }

    #[test]
    fn two_legged_verification() {
        let base = "GET&http%3A%2F%2Fexample.com%2F&a%3Db";
        let signature = sign(b"kd94hf93k423kf44&", base);
        let writes = |base: &'static str| move |out: &mut dyn FnMut(&[u8])| out(base.as_bytes());
        assert!(verify(
            SignatureMethod::HmacSha1,
            "kd94hf93k423kf44",
            &signature,
            writes(base)
        ));
        assert!(!verify(
            SignatureMethod::HmacSha1,
            "another-secret",
            &signature,
            writes(base)
        ));
        assert!(!verify(
            SignatureMethod::HmacSha1,
            "kd94hf93k423kf44",
            &signature,
            writes("GET&x&y")
        ));
        assert!(!verify(
            SignatureMethod::HmacSha256,
            "kd94hf93k423kf44",
            &signature,
            writes(base)
        ));
    }

    #[test]
    fn encoding_is_rfc_3986() {
        assert_eq!(encode("abc-._~XYZ019", false), "abc-._~XYZ019");
        assert_eq!(encode("a b+c/é✓", false), "a%20b%2Bc%2F%C3%A9%E2%9C%93");
        assert_eq!(encode("a b=", true), "a%2520b%253D");
        assert_eq!(encode("", true), "");
    }

    /// Parameters sort by their encoded bytes (section 3.4.1.3.2), which is not the order of
    /// the decoded strings: `~` is above `é` decoded but below it encoded (`%C3%A9`).
    #[test]
    fn sorting_follows_the_encoded_bytes() {
        let texts = [
            "", "a", "a b", "a-b", "a~", "aé", "a%", "a0", "aA", "a_", "a.", "a!", "~", "é",
            "\u{7f}", "Z", "z", "a\u{1}", "ab", "a+", "a/", "a:",
        ];
        let mut by_encoding: Vec<&str> = texts.to_vec();
        by_encoding.sort_by_key(|text| encode(text, false));
        let mut by_order: Vec<&str> = texts.to_vec();
        by_order.sort_by(|a, b| encoded_order(a, b));
        assert_eq!(by_order, by_encoding);
    }

    #[test]
    fn header_parsing() {
        assert_eq!(parse_authorization("Basic abc").unwrap(), None);
        let pairs = parse_authorization(r#"OAuth oauth_nonce="a%20b",oauth_token="""#)
            .unwrap()
            .unwrap();
        assert_eq!(
            pairs,
            [
                (Cow::Borrowed("oauth_nonce"), Cow::Owned("a b".into())),
                (Cow::Borrowed("oauth_token"), Cow::Borrowed(""))
            ]
        );
        assert!(parse_authorization("OAuth oauth_nonce=unquoted").is_err());
    }

    #[test]
    fn signatures_are_bounded() {
        assert_eq!(
            Signature::decode("MdpQcU8iPSUjWoN/UDMsK2sui9I=")
                .unwrap()
                .as_bytes()
                .len(),
            20
        );
        assert!(Signature::decode(&"A".repeat(MAX_SIGNATURE_BASE64 + 4)).is_err());
        assert!(Signature::decode("not base64!").is_err());
    }
}
