//! The table itself: every op one row, and the writes exactly the ops 3.8's prep stage makes
//! a txn of (`PrepRequestProcessor.pRequest`), which take a zxid even when they fail.

use super::{Run, TABLE};
use crate::zk::proto::OpCode;

fn rows() -> impl Iterator<Item = &'static super::Serve> {
    TABLE.iter().flat_map(|rows| rows.iter())
}

#[test]
fn every_op_has_one_row() {
    for &op in OpCode::ALL {
        assert_eq!(rows().filter(|row| row.op == op).count(), 1, "{op:?}");
    }
}

#[test]
fn the_writes_are_the_ops_that_make_a_txn() {
    let mut writes: Vec<OpCode> = rows()
        .filter(|row| matches!(row.run, Run::Write(_)))
        .map(|row| row.op)
        .collect();
    writes.sort();
    let mut expected = vec![
        OpCode::Create,
        OpCode::Create2,
        OpCode::CreateContainer,
        OpCode::CreateTtl,
        OpCode::Delete,
        OpCode::SetData,
        OpCode::SetAcl,
        OpCode::Multi,
        OpCode::Reconfig,
        OpCode::CloseSession,
    ];
    expected.sort();
    assert_eq!(writes, expected);
    let at_once: Vec<OpCode> = rows()
        .filter(|row| matches!(row.run, Run::AtOnce(_)))
        .map(|row| row.op)
        .collect();
    assert_eq!(at_once, [OpCode::Auth, OpCode::Sasl]);
}
