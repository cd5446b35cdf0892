//! Serving a model in stateright's Explorer, a web page that steps through its states by hand
//! and checks it on demand.

use stateright::Model;
use std::fmt::Debug;
use std::hash::Hash;
use std::io::Write;
use std::net::SocketAddr;

/// Says where the Explorer serves `model`, then serves it on `addr` until the process ends.
pub fn serve<M>(name: &str, model: M, addr: SocketAddr)
where
    M: Model + Send + Sync + 'static,
    M::State: Debug + Hash + Send + Sync + Clone + PartialEq,
    M::Action: Debug + Send + Sync + Clone + PartialEq,
{
    println!("serving the Explorer for {name} on http://{addr}/ (Ctrl-C stops it)");
    // Said before serving (serving never returns), so whoever waits for the line gets it now.
    let _ = std::io::stdout().flush();
    model.checker().serve(addr);
}
