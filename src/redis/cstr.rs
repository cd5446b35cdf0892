//! Arguments as Redis's C code often reads them: as C strings, which end at the first NUL.
//! Option names (`NX`, `KEEPTTL`...) are compared and error texts printed that way, so
//! `SET k v nx\0junk` is a SET NX, and an argument prints only up to its NUL.

/// The argument up to its first NUL.
pub fn cstr(arg: &[u8]) -> &[u8] {
    match arg.iter().position(|&b| b == 0) {
        Some(end) => arg.get(..end).unwrap_or_default(),
        None => arg,
    }
}

/// `strcasecmp(arg, name) == 0`: the argument, read as a C string, is `name` in any case.
pub fn is(arg: &[u8], name: &str) -> bool {
    cstr(arg).eq_ignore_ascii_case(name.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_at_nul() {
        assert_eq!(cstr(b"nx\0zz"), b"nx");
        assert_eq!(cstr(b"\0"), b"");
        assert_eq!(cstr(b"plain"), b"plain");
        assert!(is(b"Nx\0zz", "nx"));
        assert!(is(b"KEEPttl", "keepttl"));
        assert!(!is(b"nxx", "nx"));
        assert!(!is(b"", "nx"));
    }
}
