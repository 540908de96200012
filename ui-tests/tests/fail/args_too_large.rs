// Every rank copies its arguments into shared memory: a struct of more
// than 4 KiB is refused when the kernel is compiled.
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Huge {
    table: [f64; 1024],
}

#[rank]
fn k(rank: &mut Rank, args: &Huge) {
    let _ = (rank, args.table[0]);
}

fn main() {}
