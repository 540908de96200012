//! Legal code that looks like a rule break and must compile: a shadowed
//! handle name, a local named like an intrinsic, a macro defined in the
//! body that calls a collective in uniform code, `single`'s broadcast, a
//! time-out on the rank's uniform clock, collectives in path form.
use dcuda_device::{rank, rank_log, Rank, Sum};

#[derive(Clone, Copy)]
struct Args {
    limit_ns: u64,
}

fn world_rank(rank: &mut Rank) -> u32 {
    // Inside a block, `rank` is shadowed by a number: not the handle.
    let world = rank.world();
    {
        let rank = world.rank();
        if rank > 1_000_000 {
            return rank;
        }
    }
    rank.id()
}

#[rank]
fn k(rank: &mut Rank, args: &Args) {
    let block_dim = rank.threads_per_rank();
    rank_log!(rank, "{} threads", block_dim);
    macro_rules! sync_all {
        () => {
            rank.sync_threads()
        };
    }
    sync_all!();
    let leader = rank.single(|t| t.index() + 7);
    if leader == 7 {
        Rank::sync_threads(rank);
    }
    let started = rank.timestamp();
    while !rank.test_notifications(0, 1) {
        if rank.timestamp() - started > args.limit_ns {
            break;
        }
    }
    let total = Rank::reduce(rank, |t| t.index(), Sum);
    let me = world_rank(rank);
    {
        let rank = me + total;
        let _ = rank;
    }
    rank.sync_threads();
}

fn main() {
    assert_eq!(K.name(), "k");
}
