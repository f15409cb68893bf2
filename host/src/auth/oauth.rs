//! OAuth 1.0a (RFC 5849) two-legged signatures: reading the protocol parameters, the
//! signature base string (section 3.4.1) and HMAC-SHA1 / HMAC-SHA256 verification.

use std::borrow::Cow;

use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use percent_encoding::percent_decode_str;

use crate::api::{ApiError, ErrorCode};

/// Longest `Authorization` header read.
const MAX_HEADER: usize = 4096;

/// RFC 3986 section 2.3 percent-encoding: everything but ALPHA, DIGIT and `-._~`, as
/// upper-case hex of the UTF-8 bytes.
pub fn encode(text: &str) -> Cow<'_, str> {
    let unreserved = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
    if text.bytes().all(unreserved) {
        return Cow::Borrowed(text);
    }
    // Byte by byte into one buffer: base strings of large form values (a pack's JSON) are
    // encoded twice per signed call, and the percent-encoding crate's chunked Display
    // writes were a visible cost.
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut encoded = String::with_capacity(text.len() * 3);
    for b in text.bytes() {
        if unreserved(b) {
            encoded.push(b as char);
        } else {
            encoded.push('%');
            encoded.push(HEX[usize::from(b >> 4)] as char);
            encoded.push(HEX[usize::from(b & 15)] as char);
        }
    }
    Cow::Owned(encoded)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureMethod {
    HmacSha1,
    HmacSha256,
}

/// The protocol parameters of a signed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protocol {
    pub consumer_key: String,
    pub signature_method: SignatureMethod,
    /// The decoded signature bytes.
    pub signature: Vec<u8>,
    pub timestamp: u64,
    pub nonce: String,
    /// Parameters from the `Authorization` header that are part of the base string.
    pub header_parameters: Vec<(String, String)>,
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidOauthParameters, message)
}

/// Parses `OAuth realm="x", oauth_consumer_key="k", ...` into decoded name/value pairs;
/// `None` if the header is not an OAuth one.
pub fn parse_authorization(header: &str) -> Result<Option<Vec<(String, String)>>, ApiError> {
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
    let decode = |s: &str| {
        percent_decode_str(s)
            .decode_utf8()
            .map(|v| v.into_owned())
            .map_err(|_| invalid("Authorization: a value is not UTF-8 once decoded"))
    };
    let mut pairs = Vec::new();
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

impl Protocol {
    /// Reads the protocol parameters from the header pairs, or else from the request
    /// parameters (`get` looks one up). Checks their form, not the signature.
    pub fn read(
        header: Option<Vec<(String, String)>>,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Protocol, ApiError> {
        let from_header = header.is_some();
        let header_parameters: Vec<(String, String)> = header
            .unwrap_or_default()
            .into_iter()
            .filter(|(name, _)| name != "realm")
            .collect();
        let value = |name: &str| -> Option<String> {
            if from_header {
                header_parameters
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
            } else {
                get(name)
            }
        };
        let required = |name: &str| {
            value(name)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| invalid(format!("{name}: this OAuth parameter is required")))
        };
        if from_header
            && header_parameters
                .iter()
                .any(|(name, _)| get(name).is_some())
        {
            return Err(invalid(
                "oauth_* parameters are in both the Authorization header and the request; send them in one place",
            ));
        }
        let consumer_key = required("oauth_consumer_key")?;
        let signature_method = match required("oauth_signature_method")?.as_str() {
            "HMAC-SHA1" => SignatureMethod::HmacSha1,
            "HMAC-SHA256" => SignatureMethod::HmacSha256,
            other => {
                return Err(invalid(format!(
                    "oauth_signature_method: {other:?} is not supported; use HMAC-SHA1 or HMAC-SHA256"
                )));
            }
        };
        let signature = base64::engine::general_purpose::STANDARD
            .decode(required("oauth_signature")?)
            .map_err(|_| invalid("oauth_signature: not base64"))?;
        let timestamp = required("oauth_timestamp")?.parse().map_err(|_| {
            invalid("oauth_timestamp: expected seconds since 1970 as a whole number")
        })?;
        let nonce = required("oauth_nonce")?;
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
            header_parameters: header_parameters
                .into_iter()
                .filter(|(name, _)| name != "oauth_signature")
                .collect(),
        })
    }
}

/// The signature base string (RFC 5849 section 3.4.1). `parameters` are the query and
/// form-body pairs as received (decoded) plus the header's protocol parameters;
/// `oauth_signature` is left out here.
pub fn base_string<'a>(
    http_method: &str,
    base_uri: &str,
    parameters: impl Iterator<Item = (&'a str, &'a str)>,
) -> String {
    let mut encoded: Vec<(Cow<str>, Cow<str>)> = parameters
        .filter(|(name, _)| *name != "oauth_signature")
        .map(|(name, value)| (encode(name), encode(value)))
        .collect();
    encoded.sort_unstable();
    let mut normalized = String::with_capacity(256);
    for (i, (name, value)) in encoded.iter().enumerate() {
        if i > 0 {
            normalized.push('&');
        }
        normalized.push_str(name);
        normalized.push('=');
        normalized.push_str(value);
    }
    let mut base = http_method.to_ascii_uppercase();
    base.push('&');
    base.push_str(&encode(base_uri));
    base.push('&');
    base.push_str(&encode(&normalized));
    base
}

/// Whether `signature` is the HMAC of `base_string` under the consumer secret (and an
/// empty token secret), compared in constant time.
pub fn verify(
    method: SignatureMethod,
    consumer_secret: &str,
    base_string: &str,
    signature: &[u8],
) -> bool {
    let key = format!("{}&", encode(consumer_secret));
    match method {
        SignatureMethod::HmacSha1 => {
            let mut mac =
                Hmac::<sha1::Sha1>::new_from_slice(key.as_bytes()).expect("HMAC takes any key");
            mac.update(base_string.as_bytes());
            mac.verify_slice(signature).is_ok()
        }
        SignatureMethod::HmacSha256 => {
            let mut mac =
                Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes()).expect("HMAC takes any key");
            mac.update(base_string.as_bytes());
            mac.verify_slice(signature).is_ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            .chain(header.into_iter().filter(|(n, _)| n != "realm"))
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
                .chain(header.into_iter().filter(|(n, _)| n != "realm"))
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
        let mut mac =
            Hmac::<sha1::Sha1>::new_from_slice(b"kd94hf93k423kf44&pfkkdhi9sl3r4s00").unwrap();
        mac.update(base.as_bytes());
        let signature =
            base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
        assert_eq!(signature, "MdpQcU8iPSUjWoN/UDMsK2sui9I=");
    }

    #[test]
    fn two_legged_verification() {
        let base = "GET&http%3A%2F%2Fexample.com%2F&a%3Db";
        let mut mac = Hmac::<sha1::Sha1>::new_from_slice(b"kd94hf93k423kf44&").unwrap();
        mac.update(base.as_bytes());
        let signature = mac.finalize().into_bytes();
        assert!(verify(
            SignatureMethod::HmacSha1,
            "kd94hf93k423kf44",
            base,
            &signature
        ));
        assert!(!verify(
            SignatureMethod::HmacSha1,
            "another-secret",
            base,
            &signature
        ));
        assert!(!verify(
            SignatureMethod::HmacSha1,
            "kd94hf93k423kf44",
            "GET&x&y",
            &signature
        ));
        assert!(!verify(
            SignatureMethod::HmacSha256,
            "kd94hf93k423kf44",
            base,
            &signature
        ));
    }

    #[test]
    fn encoding_is_rfc_3986() {
        assert_eq!(encode("abc-._~XYZ019"), "abc-._~XYZ019");
        assert_eq!(encode("a b+c/é✓"), "a%20b%2Bc%2F%C3%A9%E2%9C%93");
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
                ("oauth_nonce".into(), "a b".into()),
                ("oauth_token".into(), String::new())
            ]
        );
        assert!(parse_authorization("OAuth oauth_nonce=unquoted").is_err());
    }
}
