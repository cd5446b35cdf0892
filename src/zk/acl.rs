//! ZooKeeper 3.8's access control, pure: who a connection is (its `authInfo`: its IP, plus
//! each digest it authenticated as), how a create's or setACL's list is fixed up before it is
//! stored (`PrepRequestProcessor.fixupACL`), and whether a list grants a permission to a
//! connection (`ZooKeeperServer.checkACL`) under the two schemes 3.8 registers by default,
//! `ip` and `digest`, besides `world:anyone`.

use std::borrow::Cow;
use std::net::IpAddr;

use crate::zk::proto::{Acl, ErrorCode};

/// ZooDefs.Perms bits.
pub const READ: i32 = 1;
pub const WRITE: i32 = 2;
pub const CREATE: i32 = 4;
pub const DELETE: i32 = 8;
pub const ADMIN: i32 = 16;

/// One identity a connection holds (3.8's `Id` in `authInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthId {
    pub scheme: String,
    pub id: String,
}

impl AuthId {
    /// The identity every connection has from its remote address.
    pub fn ip(peer: IpAddr) -> Self {
        AuthId {
            scheme: "ip".into(),
            id: peer.to_string(),
        }
    }

    /// Whom whoAmI names (`getUserName`): a digest's user without its hash, else the id.
    pub fn user(&self) -> &str {
        match self.scheme.as_str() {
            "digest" => self.id.split(':').next().unwrap_or_default(),
            _ => &self.id,
        }
    }
}

/// What an auth packet of `scheme` adds to a connection, or `None` when 3.8 has no provider
/// for the scheme (it answers AuthFailed and closes the connection). `digest` adds
/// `user:base64(sha1(auth))`; `ip` adds the address, which the connection holds already.
pub fn authenticate(scheme: &str, auth: &[u8]) -> Option<Vec<AuthId>> {
    match scheme {
        "digest" => Some(vec![AuthId {
            scheme: "digest".into(),
            id: digest(&String::from_utf8_lossy(auth)),
        }]),
        "ip" => Some(Vec::new()),
        _ => None,
    }
}

/// `DigestAuthenticationProvider.generateDigest`: the user (before the first ':') and the
/// base64 SHA-1 of the whole `user:password`.
pub fn digest(user_password: &str) -> String {
    let user = user_password.split(':').next().unwrap_or_default();
    let sha = sha1_smol::Sha1::from(user_password.as_bytes())
        .digest()
        .bytes();
    format!("{user}:{}", base64(&sha))
}

/// `fixupACL`: duplicates dropped; `world:anyone` kept; each `auth` entry replaced by one per
/// digest identity the connection holds (InvalidAcl if it holds none); any other entry kept
/// if its scheme is `ip` or `digest` and its id is well formed for it. An empty list, or an
/// entry of another scheme (`world` with another id too), is InvalidAcl. Borrowed when the
/// list stands as it is, as nearly every create's does.
pub fn fixup<'a>(acl: &'a [Acl], who: &[AuthId]) -> Result<Cow<'a, [Acl]>, ErrorCode> {
    let well_formed = |entry: &Acl| match entry.scheme.as_str() {
        "world" => entry.id == "anyone",
        "ip" => valid_ip_expr(&entry.id),
        "digest" => valid_digest(&entry.id),
        "auth" => true,
        _ => false,
    };
    if acl.is_empty() || !acl.iter().all(well_formed) {
        return Err(ErrorCode::InvalidAcl);
    }
    let repeated = |index: usize| acl[..index].contains(&acl[index]);
    let as_is = (0..acl.len()).all(|i| !repeated(i) && acl[i].scheme != "auth");
    if as_is {
        return Ok(Cow::Borrowed(acl));
    }
    let mut fixed = Vec::with_capacity(acl.len());
    for (index, entry) in acl.iter().enumerate() {
        if repeated(index) {
            continue;
        }
        if entry.scheme != "auth" {
            fixed.push(entry.clone());
            continue;
        }
        let mut held = who.iter().filter(|id| id.scheme == "digest").peekable();
        if held.peek().is_none() {
            return Err(ErrorCode::InvalidAcl);
        }
        fixed.extend(held.map(|id| Acl {
            perms: entry.perms,
            scheme: id.scheme.clone(),
            id: id.id.clone(),
        }));
    }
    Ok(Cow::Owned(fixed))
}

/// `checkACL`: whether an entry holding any of the bits of `perm` names `world:anyone` or one
/// of the connection's identities. An empty list grants everything.
pub fn permits(acl: &[Acl], perm: i32, who: &[AuthId]) -> bool {
    acl.is_empty()
        || acl.iter().any(|entry| {
            entry.perms & perm != 0
                && match entry.scheme.as_str() {
                    "world" => entry.id == "anyone",
                    "digest" => who
                        .iter()
                        .any(|id| id.scheme == "digest" && id.id == entry.id),
                    "ip" => who
                        .iter()
                        .any(|id| id.scheme == "ip" && ip_matches(&id.id, &entry.id)),
                    _ => false,
                }
        })
}

/// What getACL shows a connection without ADMIN on the node: digests' hashes as `x`.
pub fn masked(acl: &[Acl]) -> Vec<Acl> {
    acl.iter()
        .map(|entry| match entry.scheme.as_str() {
            "digest" => Acl {
                id: format!("{}:x", entry.id.split(':').next().unwrap_or_default()),
                ..entry.clone()
            },
            _ => entry.clone(),
        })
        .collect()
}

/// `DigestAuthenticationProvider.isValid`: exactly two parts around ':' once Java's `split`
/// has dropped trailing empty ones (`u:` is one part).
fn valid_digest(id: &str) -> bool {
    let parts: Vec<&str> = id.split(':').collect();
    let kept = parts.len() - parts.iter().rev().take_while(|p| p.is_empty()).count();
    kept == 2
}

/// An address, optionally `/bits` within its length.
fn valid_ip_expr(expr: &str) -> bool {
    parse_ip_expr(expr).is_some()
}

fn parse_ip_expr(expr: &str) -> Option<(Vec<u8>, usize)> {
    let (addr, bits) = match expr.split_once('/') {
        Some((addr, bits)) => (addr, Some(bits)),
        None => (expr, None),
    };
    let bytes = ip_bytes(addr)?;
    let max = bytes.len() * 8;
    let bits = match bits {
        Some(bits) => bits.parse::<usize>().ok().filter(|b| *b <= max)?,
        None => max,
    };
    Some((bytes, bits))
}

fn ip_bytes(addr: &str) -> Option<Vec<u8>> {
    match addr.parse::<IpAddr>().ok()? {
        IpAddr::V4(v4) => Some(v4.octets().to_vec()),
        IpAddr::V6(v6) => Some(v6.octets().to_vec()),
    }
}

/// `IPAuthenticationProvider.matches`: the client's address within the entry's prefix.
fn ip_matches(client: &str, expr: &str) -> bool {
    let (Some((want, bits)), Some(got)) = (parse_ip_expr(expr), ip_bytes(client)) else {
        return false;
    };
    want.len() == got.len()
        && (0..bits).all(|bit| {
            let (byte, mask) = (bit / 8, 0x80u8 >> (bit % 8));
            want[byte] & mask == got[byte] & mask
        })
}

/// Standard base64 with padding, as `java.util.Base64.getEncoder()` writes it.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(perms: i32, scheme: &str, id: &str) -> Acl {
        Acl {
            perms,
            scheme: scheme.into(),
            id: id.into(),
        }
    }

    fn who(ip: &str, digests: &[&str]) -> Vec<AuthId> {
        let mut ids = vec![AuthId::ip(ip.parse().unwrap())];
        ids.extend(digests.iter().map(|d| AuthId {
            scheme: "digest".into(),
            id: digest(d),
        }));
        ids
    }

    #[test]
    fn digests_match_zookeeper_s() {
        // As `java org.apache.zookeeper.server.auth.DigestAuthenticationProvider` prints them.
        assert_eq!(
            digest("super:superpw"),
            "super:g9oN2HttPfn8MMWJZ2r45Np/LIA="
        );
        assert_eq!(digest("u:p"), "u:Jq7wMyA/w2Vd5WIDAKdu4OIIFEQ=");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"a"), "YQ==");
    }

    #[test]
    fn fixup_keeps_known_schemes_and_expands_auth() {
        let mine = who("127.0.0.1", &["u:p"]);
        let asked = [
            entry(31, "world", "anyone"),
            entry(31, "world", "anyone"),
            entry(1, "auth", ""),
            entry(3, "ip", "10.0.0.0/8"),
            entry(2, "digest", "v:hash"),
        ];
        assert_eq!(
            fixup(&asked, &mine).map(Cow::into_owned),
            Ok(vec![
                entry(31, "world", "anyone"),
                entry(1, "digest", &digest("u:p")),
                entry(3, "ip", "10.0.0.0/8"),
                entry(2, "digest", "v:hash"),
            ])
        );
        let anonymous = who("127.0.0.1", &[]);
        for bad in [
            vec![],
            vec![entry(31, "world", "bob")],
            vec![entry(31, "auth", "")],
            vec![entry(31, "ip", "10.0.0.0/33")],
            vec![entry(31, "ip", "example.org")],
            vec![entry(31, "digest", "u:")],
            vec![entry(31, "digest", "u:a:b")],
            vec![entry(31, "sasl", "u")],
        ] {
            assert_eq!(
                fixup(&bad, &anonymous),
                Err(ErrorCode::InvalidAcl),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn permits_by_world_ip_prefix_and_digest() {
        let local = who("127.0.0.1", &[]);
        let user = who("192.168.0.9", &["u:p"]);
        let read_only = [entry(READ, "world", "anyone")];
        assert!(permits(&read_only, READ, &local));
        assert!(!permits(&read_only, WRITE, &local));
        assert!(permits(&read_only, READ | ADMIN, &local), "any of the bits");
        let by_ip = [entry(31, "ip", "192.168.0.0/16")];
        assert!(permits(&by_ip, WRITE, &user));
        assert!(!permits(&by_ip, WRITE, &local));
        let by_digest = [entry(CREATE | DELETE, "digest", &digest("u:p"))];
        assert!(permits(&by_digest, DELETE, &user));
        assert!(!permits(&by_digest, DELETE, &local));
        assert!(!permits(&by_digest, WRITE, &user));
        assert!(permits(&[], ADMIN, &local), "an empty list grants all");
        assert_eq!(
            masked(&[entry(31, "digest", "u:hash"), entry(1, "ip", "1.2.3.4")]),
            [entry(31, "digest", "u:x"), entry(1, "ip", "1.2.3.4")]
        );
    }

    #[test]
    fn auth_packets_by_scheme() {
        assert_eq!(
            authenticate("digest", b"u:p"),
            Some(vec![AuthId {
                scheme: "digest".into(),
                id: digest("u:p")
            }])
        );
        assert_eq!(authenticate("ip", b"10.0.0.1"), Some(vec![]));
        assert_eq!(authenticate("sasl", b""), None);
        assert_eq!(authenticate("world", b"anyone"), None);
    }
}
