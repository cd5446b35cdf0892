//! The host over in-memory streams: what it reports, and a subscriber that does not read.

use super::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A stopped clock that writes down what it is told.
struct Recorder {
    events: Vec<String>,
}

impl Env for Recorder {
    fn now(&self) -> Now {
        Now {
            wall_ms: 1_700_000_000_000,
            mono_ms: 0,
        }
    }

    fn sleep_until(&self, _mono_ms: u64) -> impl Future<Output = ()> + 'static {
        std::future::pending()
    }

    fn observe(&mut self, event: HostEvent<'_>) {
        self.events.push(format!("{event:?}"));
    }
}

#[tokio::test]
async fn writes_are_reported_and_a_protocol_error_ends_the_connection_from_the_server() {
    let host = Host::new(Recorder { events: Vec::new() }, Config::default()).shared();
    let (mut client, server_side) = tokio::io::duplex(64);
    let local = tokio::task::LocalSet::new();
    let served = local.run_until(async {
        let serving = tokio::task::spawn_local(serve(host.clone(), "c".into(), server_side));
        client
            .write_all(b"SET k v\r\nGET k\r\n*x\r\n")
            .await
            .unwrap();
        let mut replies = Vec::new();
        client.read_to_end(&mut replies).await.unwrap();
        serving.await.unwrap();
        replies
    });
    let replies = served.await;
    assert_eq!(
        replies,
        b"+OK\r\n$1\r\nv\r\n-ERR Protocol error: invalid multibulk length\r\n"
    );
    let events = &host.borrow().env.events;
    assert_eq!(events.len(), 3, "{events:?}");
    assert!(events[0].starts_with("Accepted { conn: 2"), "{events:?}");
    assert!(
        events[1].starts_with("Propagated { conn: Some(2)"),
        "{events:?}"
    );
    assert_eq!(events[2], "Closed { conn: 2, by_server: true }");
}

/// Serves a connection as `locksim serve` does, shutting it down at the end.
async fn serve(host: SharedHost<Recorder>, client: String, stream: tokio::io::DuplexStream) {
    let _ = serve_conn(host, client, stream).await.shutdown().await;
}

/// A RESP2 command of bulk strings.
fn command(args: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        out.extend(format!("${}\r\n", arg.len()).into_bytes());
        out.extend(*arg);
        out.extend(b"\r\n");
    }
    out
}

#[tokio::test]
async fn a_subscriber_that_does_not_read_is_dropped_at_the_hard_output_limit() {
    let host = Host::new(Recorder { events: Vec::new() }, Config::default()).shared();
    let (mut subscriber, subscriber_side) = tokio::io::duplex(64);
    let (mut publisher, publisher_side) = tokio::io::duplex(64);
    let message = vec![b'm'; 1 << 20];
    let local = tokio::task::LocalSet::new();
    let counts = local
        .run_until(async {
            tokio::task::spawn_local(serve(host.clone(), "s".into(), subscriber_side));
            tokio::task::spawn_local(serve(host.clone(), "p".into(), publisher_side));
            subscriber
                .write_all(&command(&[b"SUBSCRIBE", b"ch"]))
                .await
                .unwrap();
            let mut confirmation = [0; 31];
            subscriber.read_exact(&mut confirmation).await.unwrap();
            assert_eq!(
                &confirmation,
                b"*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"
            );
            // The subscriber reads nothing more; each PUBLISH's count, until it is 0.
            let mut counts = Vec::new();
            while counts.last() != Some(&b":0\r\n".to_vec()) && counts.len() < 40 {
                publisher
                    .write_all(&command(&[b"PUBLISH", b"ch", &message]))
                    .await
                    .unwrap();
                let mut count = vec![0; 4];
                publisher.read_exact(&mut count).await.unwrap();
                counts.push(count);
            }
            counts
        })
        .await;
    // 32 messages of 1 MiB and their framing reach 32 MiB: the 32nd drops it.
    let heard = counts.iter().filter(|c| c.as_slice() == b":1\r\n").count();
    assert_eq!((heard, counts.len()), (32, 33), "{counts:?}");
    let events = &host.borrow().env.events;
    let subscriber_id = 2;
    // Each message is 37 bytes of framing around its 1 MiB.
    let unwritten = 32 * ((1 << 20) + 37);
    assert!(
        events.contains(&format!(
            "OutputLimit {{ conn: {subscriber_id}, client: \"s\", unwritten: {unwritten} }}"
        )),
        "{events:?}"
    );
    assert!(
        events.contains(&format!(
            "Closed {{ conn: {subscriber_id}, by_server: true }}"
        )),
        "{events:?}"
    );
}
