//! Async ZooKeeper client over any AsyncRead + AsyncWrite (H4).
