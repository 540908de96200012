//! Unit tests of `Datatype` that need no GPU.

extern crate std;
use super::Datatype;
use std::vec;

/// `overlaps` as it was, an insertion sort of the levels: the network
/// that replaced it must agree with it everywhere.
fn overlaps_by_insertion(t: &Datatype) -> bool {
    if t.size() <= 1 {
        return false;
    }
    let mut levels = vec![(1u64, t.block as u64)];
    for i in 0..3 {
        if t.counts[i] > 1 {
            levels.push((t.strides[i], t.counts[i] as u64));
        }
    }
    levels.sort_by_key(|l| l.0); // stable, as the insertion sort
    let mut span = 1u64;
    for (stride, count) in levels {
        if count > 1 {
            if stride < span {
                return true;
            }
            span += stride * (count - 1);
        }
    }
    false
}

/// A xorshift sequence from `seed`: `next(n)` is below `n`.
fn sequence(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed;
    move |n| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    }
}

/// Whether two elements of `t` are the same element of the buffer.
fn repeats(t: &Datatype) -> bool {
    let mut seen = std::collections::HashSet::new();
    (0..t.size()).any(|e| !seen.insert(t.offset(e)))
}

#[test]
fn the_sorting_network_agrees_with_the_insertion_sort() {
    // Small datatypes of up to three levels, strides from 0 (every
    // copy on the same elements) past the block, in a fixed sequence.
    let mut next = sequence(0x2545_f491_4f6c_dd1d);
    for _ in 0..20_000 {
        let block = 1 + next(4) as u32;
        let mut t = Datatype::vector(1 + next(4) as u32, block, next(12));
        for _ in 0..next(3) {
            match Datatype::vector_of(1 + next(4) as u32, next(40), t) {
                Ok(outer) => t = outer,
                Err(_) => break,
            }
        }
        let got = t.overlaps();
        assert_eq!(got, overlaps_by_insertion(&t), "{t:?}");
        // And it refuses every datatype that names an element twice.
        assert!(got || !repeats(&t), "{t:?}");
    }
}

/// One past the furthest element `t` names, by walking it.
fn furthest(t: &Datatype) -> u64 {
    (0..t.size()).map(|e| t.offset(e) + 1).max().unwrap_or(0)
}

#[test]
fn the_extent_found_when_made_is_the_furthest_element() {
    let mut next = sequence(0x9e37_79b9_7f4a_7c15);
    for _ in 0..5_000 {
        let block = 4 * (1 + next(3) as u32);
        let mut t = Datatype::vector(next(4) as u32, block, 4 * next(12));
        for _ in 0..next(3) {
            match Datatype::vector_of(1 + next(4) as u32, 4 * next(40), t) {
                Ok(outer) => t = outer,
                Err(_) => break,
            }
        }
        let t = t.shifted(4 * next(5)).unwrap();
        assert_eq!(t.extent(), furthest(&t), "{t:?}");
        let units = t.in_units_of(4).unwrap();
        assert_eq!(units.extent(), furthest(&units), "{units:?}");
        let piece = Datatype::of_piece(&t.piece(0, 4, 1)).unwrap();
        assert_eq!(piece.extent(), t.extent(), "{t:?}");
    }
    let column = Datatype::subarray_2d([4096, 4096], [4096, 1], [0, 1]).unwrap();
    assert_eq!(column.extent(), 4095 * 4096 + 2);
    // Past 2^63 it is never in bounds, in units too.
    let huge = Datatype::vector(u32::MAX, 4, 1 << 62);
    assert_eq!(huge.extent(), u64::MAX);
    assert_eq!(huge.in_units_of(4).map(|u| u.extent()), Some(u64::MAX));
}

#[test]
fn div_rem_agrees_with_division_for_powers_of_two_and_others() {
    let mut next = sequence(0x1234_5678_9abc_def1);
    let mut word = || next(1 << 32) as u32;
    for _ in 0..100_000 {
        let n = word();
        let d = match word() % 3 {
            0 => 1 << (word() % 32),
            1 => 1 + word() % 1000,
            _ => 1 + word() % u32::MAX,
        };
        assert_eq!(super::div_rem(n, d), (n / d, n % d), "{n} / {d}");
    }
    assert_eq!(super::div_rem(u32::MAX, 1), (u32::MAX, 0));
    assert_eq!(super::div_rem(7, 1 << 31), (0, 7));
}
