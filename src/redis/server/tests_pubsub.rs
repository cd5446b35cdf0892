//! Pub/sub, RESET and CLIENT LIST across connections, through `handle_input` as a driver
//! calls it; the bytes checked against redis-server 7.0.15.

use super::test_support::at;
use super::{Config, Server};
use crate::redis::clients::Delivery;
use crate::redis::conn::Conn;

fn server() -> Server {
    Server::new(Config::default())
}

fn send(server: &mut Server, conn: &mut Conn, input: &[u8]) -> Vec<u8> {
    server.handle_input(conn, input, at(0)).bytes
}

fn delivery(client: &Conn, bytes: &[u8]) -> Delivery {
    Delivery {
        client: client.id(),
        bytes: bytes.to_vec(),
        unblocks: false,
    }
}

#[test]
fn a_publish_reaches_channel_then_pattern_subscribers_and_counts_them() {
    let mut s = server();
    let (mut sub, mut psub, mut publisher) = (s.connect(), s.connect(), s.connect());
    assert_eq!(
        send(&mut s, &mut sub, b"SUBSCRIBE ch1 ch2\r\n"),
        b"*3\r\n$9\r\nsubscribe\r\n$3\r\nch1\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$3\r\nch2\r\n:2\r\n"
    );
    assert_eq!(
        send(&mut s, &mut psub, b"PSUBSCRIBE c* ?h1\r\n"),
        b"*3\r\n$10\r\npsubscribe\r\n$2\r\nc*\r\n:1\r\n*3\r\n$10\r\npsubscribe\r\n$3\r\n?h1\r\n:2\r\n"
    );
    assert!(
        s.take_deliveries().is_empty(),
        "confirmations are the caller's"
    );
    assert_eq!(
        send(&mut s, &mut publisher, b"PUBLISH ch1 m\r\n"),
        b":3\r\n"
    );
    assert_eq!(
        s.take_deliveries(),
        vec![
            delivery(&sub, b"*3\r\n$7\r\nmessage\r\n$3\r\nch1\r\n$1\r\nm\r\n"),
            delivery(
                &psub,
                b"*4\r\n$8\r\npmessage\r\n$3\r\n?h1\r\n$3\r\nch1\r\n$1\r\nm\r\n"
            ),
            delivery(
                &psub,
                b"*4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$3\r\nch1\r\n$1\r\nm\r\n"
            ),
        ]
    );
    assert_eq!(
        send(&mut s, &mut publisher, b"PUBLISH nobody m\r\n"),
        b":0\r\n"
    );
    assert!(s.take_deliveries().is_empty());
    // Gone, it receives nothing and counts for nothing.
    s.disconnect(&mut sub);
    assert_eq!(
        send(&mut s, &mut publisher, b"PUBLISH ch2 m\r\n"),
        b":1\r\n"
    );
    assert_eq!(s.take_deliveries().len(), 1);
    assert_eq!(
        send(
            &mut s,
            &mut publisher,
            b"PUBSUB NUMSUB ch1 ch2\r\nPUBSUB NUMPAT\r\n"
        ),
        b"*4\r\n$3\r\nch1\r\n:0\r\n$3\r\nch2\r\n:0\r\n:2\r\n"
    );
}

#[test]
fn resp2_subscribed_mode_allows_few_commands_and_pings_as_an_array() {
    let mut s = server();
    let mut c = s.connect();
    send(&mut s, &mut c, b"SUBSCRIBE ch\r\n");
    assert_eq!(
        send(&mut s, &mut c, b"GET k\r\nCLIENT ID\r\n"),
        b"-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / \
          RESET are allowed in this context\r\n-ERR Can't execute 'client|id': only \
          (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this \
          context\r\n"
    );
    assert_eq!(
        send(&mut s, &mut c, b"PING\r\nPING hi\r\n"),
        b"*2\r\n$4\r\npong\r\n$0\r\n\r\n*2\r\n$4\r\npong\r\n$2\r\nhi\r\n"
    );
    assert_eq!(
        send(
            &mut s,
            &mut c,
            b"UNSUBSCRIBE\r\nUNSUBSCRIBE\r\nPUNSUBSCRIBE\r\n"
        ),
        b"*3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:0\r\n*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n\
          *3\r\n$12\r\npunsubscribe\r\n$-1\r\n:0\r\n"
    );
    assert_eq!(
        send(&mut s, &mut c, b"PING\r\nGET k\r\n"),
        b"+PONG\r\n$-1\r\n"
    );
}

#[test]
fn resp3_gets_pushes_any_command_and_its_own_message_before_the_reply() {
    let mut s = server();
    let mut c = s.connect();
    send(&mut s, &mut c, b"HELLO 3\r\n");
    assert_eq!(
        send(&mut s, &mut c, b"SUBSCRIBE ch\r\n"),
        b">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"
    );
    assert_eq!(
        send(&mut s, &mut c, b"PING\r\nGET k\r\nPUBLISH ch self\r\n"),
        b"+PONG\r\n_\r\n>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$4\r\nself\r\n:1\r\n"
    );
    let mut other = s.connect();
    send(&mut s, &mut other, b"PUBLISH ch m\r\n");
    assert_eq!(
        s.take_deliveries(),
        vec![delivery(
            &c,
            b">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nm\r\n"
        )]
    );
    assert_eq!(
        send(&mut s, &mut c, b"UNSUBSCRIBE\r\nUNSUBSCRIBE\r\n"),
        b">3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:0\r\n>3\r\n$11\r\nunsubscribe\r\n_\r\n:0\r\n"
    );
}

#[test]
fn frames_a_queued_command_sends_itself_come_inside_execs_array_before_its_reply() {
    let mut s = server();
    let mut c = s.connect();
    assert_eq!(
        send(
            &mut s,
            &mut c,
            b"MULTI\r\nSUBSCRIBE a b\r\nPING\r\nEXEC\r\n"
        ),
        [
            b"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n".as_slice(),
            b"*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n",
            b"*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n",
            b"*2\r\n$4\r\npong\r\n$0\r\n\r\n",
        ]
        .concat()
    );
    let mut c = s.connect();
    send(&mut s, &mut c, b"HELLO 3\r\nSUBSCRIBE a\r\n");
    assert_eq!(
        send(
            &mut s,
            &mut c,
            b"MULTI\r\nPING\r\nPUBLISH a x\r\nEXEC\r\nPING\r\n"
        ),
        [
            b"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+PONG\r\n".as_slice(),
            b">3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nx\r\n:2\r\n+PONG\r\n",
        ]
        .concat(),
        "the message before PUBLISH's reply (two receivers: the first connection too), inside \
         the array; nothing carried to the next reply"
    );
}

#[test]
fn reset_leaves_subscriptions_transaction_name_and_resp3() {
    let mut s = server();
    let mut c = s.connect();
    send(&mut s, &mut c, b"HELLO 3 SETNAME me\r\nSUBSCRIBE a\r\n");
    assert_eq!(
        send(
            &mut s,
            &mut c,
            b"MULTI\r\nRESET\r\nGET k\r\nCLIENT GETNAME\r\n"
        ),
        b"+OK\r\n+RESET\r\n$-1\r\n$-1\r\n"
    );
    let mut other = s.connect();
    assert_eq!(send(&mut s, &mut other, b"PUBLISH a m\r\n"), b":0\r\n");
    assert!(s.take_deliveries().is_empty());
    assert_eq!(
        send(&mut s, &mut c, b"RESET extra\r\n"),
        b"-ERR wrong number of arguments for 'reset' command\r\n"
    );
}

#[test]
fn client_list_shows_each_client_in_id_order() {
    let mut s = server();
    let (mut a, mut b) = (s.connect(), s.connect());
    send(&mut s, &mut a, b"CLIENT SETNAME alice\r\nPSUBSCRIBE x*\r\n");
    send(&mut s, &mut b, b"HELLO 3\r\nMULTI\r\nGET k\r\n");
    let line = |id: u64, name: &str, rest: &str| {
        format!(
            "id={id} addr=0.0.0.0:0 laddr=0.0.0.0:6379 fd=8 name={name} age=0 idle=0 {rest} \
             qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=1024 rbp=0 obl=0 oll=0 omem=0 \
             tot-mem=0 events=r"
        )
    };
    let a_line = format!(
        "{} cmd=psubscribe user=default redir=-1 resp=2\n",
        line(a.id(), "alice", "flags=P db=0 sub=0 psub=1 ssub=0 multi=-1")
    );
    let b_line = format!(
        "{} cmd=client|list user=default redir=-1 resp=2\n",
        line(b.id(), "", "flags=N db=0 sub=0 psub=0 ssub=0 multi=-1")
    );
    send(&mut s, &mut b, b"DISCARD\r\nRESET\r\n");
    let listed = send(&mut s, &mut b, b"CLIENT LIST\r\n");
    let text = format!("{a_line}{b_line}");
    assert_eq!(
        listed,
        format!("${}\r\n{text}\r\n", text.len()).into_bytes()
    );
    let only_b = send(&mut s, &mut b, b"CLIENT LIST TYPE normal\r\n");
    assert_eq!(
        only_b,
        format!("${}\r\n{b_line}\r\n", b_line.len()).into_bytes()
    );
    assert_eq!(
        send(&mut s, &mut b, b"CLIENT LIST ID 99 -1\r\n"),
        b"$0\r\n\r\n"
    );
    assert_eq!(
        send(
            &mut s,
            &mut b,
            b"CLIENT LIST ID x\r\nCLIENT LIST TYPE foo\r\nCLIENT LIST x\r\n"
        ),
        b"-ERR Invalid client ID\r\n-ERR Unknown client type 'foo'\r\n-ERR syntax error\r\n"
    );
    send(&mut s, &mut b, b"HELLO 3\r\n");
    let info = send(&mut s, &mut b, b"CLIENT INFO\r\n");
    assert!(info.starts_with(b"="), "{info:?}");
    assert!(info.ends_with(b"cmd=client|info user=default redir=-1 resp=3\n\r\n"));
    s.disconnect(&mut a);
    let listed = send(&mut s, &mut b, b"CLIENT LIST\r\n");
    assert!(!String::from_utf8_lossy(&listed).contains("alice"));
}
