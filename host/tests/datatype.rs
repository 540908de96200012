//! Datatypes against a plain enumeration of the elements MPI's
//! definitions name (nested loops over blocks, outermost first), for
//! random shapes: offsets in order, size, extent, overlap and contiguity;
//! and a cursor's walk against those offsets.

use dcuda::{Datatype, TypeError};
use proptest::prelude::*;

/// The elements `count` copies of `inner` (element offsets), `stride`
/// apart: MPI's vector of a type.
fn repeat(inner: &[u64], count: u32, stride: u64) -> Vec<u64> {
    (0..count as u64)
        .flat_map(|i| inner.iter().map(move |o| o + i * stride))
        .collect()
}

fn elements(t: &Datatype) -> Vec<u64> {
    (0..t.size()).map(|e| t.offset(e)).collect()
}

fn extent_of(v: &[u64]) -> u64 {
    v.iter().max().map_or(0, |m| m + 1)
}

proptest! {
    #[test]
    fn vectors_of_vectors_name_the_elements_mpi_names(
        block in 0u32..5,
        levels in prop::collection::vec((1u32..5, 0u64..40), 1..=3),
        shift in 0u64..50,
    ) {
        let (count, stride) = levels[0];
        let mut t = Datatype::vector(count, block, stride);
        let mut want = repeat(&(0..block as u64).collect::<Vec<_>>(), count, stride);
        for &(count, stride) in &levels[1..] {
            t = Datatype::vector_of(count, stride, t).unwrap();
            want = repeat(&want, count, stride);
        }
        let t = t.shifted(shift).unwrap();
        let want: Vec<u64> = want.iter().map(|o| o + shift).collect();
        prop_assert_eq!(elements(&t), want.clone());
        prop_assert_eq!(t.size(), want.len() as u64);
        prop_assert_eq!(t.extent(), extent_of(&want));
        let mut sorted = want.clone();
        sorted.sort_unstable();
        sorted.dedup();
        // A datatype that names an element twice says so; one that says
        // so may still be unique only where a level repeats nothing new.
        if sorted.len() < want.len() {
            prop_assert!(t.overlaps());
        }
        if !t.overlaps() {
            prop_assert_eq!(sorted.len(), want.len());
        }
        let contiguous = want.iter().enumerate().all(|(i, &o)| o == shift + i as u64);
        if t.size() > 0 {
            prop_assert_eq!(t.is_contiguous(), contiguous);
        }
    }

    #[test]
    fn a_cursor_walks_the_offsets_of_every_step_th_element(
        block in 1u32..6,
        levels in prop::collection::vec((1u32..6, 0u64..50), 1..=3),
        shift in 0u64..50,
        first in 0u64..40,
        step in 1u64..70,
    ) {
        let (count, stride) = levels[0];
        let mut t = Datatype::vector(count, block, stride);
        for &(count, stride) in &levels[1..] {
            t = Datatype::vector_of(count, stride, t).unwrap();
        }
        let t = t.shifted(shift).unwrap();
        let mut cursor = t.cursor(first, step);
        let mut e = first;
        while e < t.size() {
            prop_assert_eq!(cursor.offset(), t.offset(e), "element {}", e);
            cursor.advance();
            e += step;
        }
    }

    #[test]
    fn subarrays_name_the_elements_mpi_names(
        sizes in [1u32..7, 1u32..7, 1u32..7],
        sub in [0u32..7, 0u32..7, 0u32..7],
        at in [0u32..7, 0u32..7, 0u32..7],
    ) {
        let t = Datatype::subarray_3d(sizes, sub, at);
        let fits = (0..3).all(|d| at[d] + sub[d] <= sizes[d]);
        prop_assert_eq!(t.is_ok(), fits);
        match t {
            Ok(t) => {
                let mut want = Vec::new();
                for i in at[0]..at[0] + sub[0] {
                    for j in at[1]..at[1] + sub[1] {
                        for k in at[2]..at[2] + sub[2] {
                            want.push(((i * sizes[1] + j) * sizes[2] + k) as u64);
                        }
                    }
                }
                prop_assert_eq!(elements(&t), want.clone());
                prop_assert!(!t.overlaps());
                prop_assert_eq!(t.extent(), extent_of(&want));
                prop_assert!(t.extent() <= (sizes[0] * sizes[1] * sizes[2]) as u64);
            }
            Err(TypeError::SubarrayOutside { dim, start, subsize, size }) => {
                let d = dim as usize;
                prop_assert_eq!((start, subsize, size), (at[d], sub[d], sizes[d]));
                prop_assert!(start + subsize > size);
            }
            Err(other) => prop_assert!(false, "unexpected {other:?}"),
        }
    }
}

#[test]
fn a_2d_subarray_is_its_3d_one_of_depth_one() {
    let two = Datatype::subarray_2d([6, 9], [3, 4], [2, 5]).unwrap();
    let three = Datatype::subarray_3d([1, 6, 9], [1, 3, 4], [0, 2, 5]).unwrap();
    assert_eq!(elements(&two), elements(&three));
    let e = Datatype::subarray_2d([6, 9], [3, 5], [2, 5]).unwrap_err();
    assert_eq!(
        e,
        TypeError::SubarrayOutside {
            dim: 1,
            start: 5,
            subsize: 5,
            size: 9
        }
    );
}

// The shapes of the book and their errors, and offsets past 2³².
#[test]
fn a_column_a_row_and_a_sub_block() {
    let column = Datatype::vector(3, 1, 5);
    assert_eq!(elements(&column), [0, 5, 10]);
    assert_eq!((column.size(), column.extent()), (3, 11));
    let row = Datatype::contiguous(4).shifted(10).unwrap();
    assert_eq!(elements(&row), [10, 11, 12, 13]);
    assert!(row.is_contiguous() && !column.is_contiguous());
    let sub = Datatype::subarray_2d([4, 5], [2, 3], [1, 2]).unwrap();
    assert_eq!(elements(&sub), [7, 8, 9, 12, 13, 14]);
    let cube = Datatype::subarray_3d([3, 3, 3], [2, 2, 2], [1, 1, 1]).unwrap();
    assert_eq!(elements(&cube), [13, 14, 16, 17, 22, 23, 25, 26]);
    let nested = Datatype::vector_of(2, 100, column).unwrap();
    assert_eq!(elements(&nested), [0, 5, 10, 100, 105, 110]);
    assert_eq!(Datatype::contiguous(0).extent(), 0);
    let rows = Datatype::subarray_2d([4, 8], [2, 4], [1, 4]).unwrap();
    let units = rows.in_units_of(4).unwrap();
    assert_eq!(elements(&units), [3, 5]);
    assert_eq!(rows.in_units_of(3), None);
    assert_eq!(Datatype::vector(2, 4, 6).in_units_of(4), None);
    // Past 2³² elements the offsets are computed in 64 bits.
    let big = Datatype::vector(1 << 20, 1 << 13, 1 << 14);
    let e = (1u64 << 32) + 5;
    assert_eq!(big.offset(e), (e >> 13) * (1 << 14) + (e & 8191));
    let deep = Datatype::vector_of(1 << 8, 1 << 30, big).unwrap();
    let e = (1u64 << 33) + 7;
    assert_eq!(
        deep.offset(e),
        (e >> 33) * (1 << 30) + ((e >> 13) % (1 << 20)) * (1 << 14) + (e & 8191)
    );
    // A cursor made past 2³² elements, stepping past them too.
    let mut cursor = deep.cursor(e, (1 << 32) + 3);
    for k in 0..3 {
        assert_eq!(cursor.offset(), deep.offset(e + k * ((1 << 32) + 3)));
        cursor.advance();
    }
}

#[test]
fn bad_shapes_are_refused() {
    let e = Datatype::subarray_2d([4, 5], [2, 3], [3, 2]).unwrap_err();
    assert_eq!(
        e,
        TypeError::SubarrayOutside {
            dim: 0,
            start: 3,
            subsize: 2,
            size: 4
        }
    );
    assert_eq!(
        format!("{e}"),
        "subarray dimension 0: start 3 + subsize 2 passes the size 4"
    );
    let cube = Datatype::subarray_3d([4, 4, 4], [2, 2, 2], [0, 0, 0]).unwrap();
    let four_cubes = Datatype::vector_of(2, 64, cube).unwrap();
    assert_eq!(four_cubes.size(), 16);
    assert_eq!(
        Datatype::vector_of(2, 1000, four_cubes).unwrap_err(),
        TypeError::TooDeep
    );
    assert_eq!(
        Datatype::vector(3, 1, u64::MAX / 2).extent(),
        u64::MAX,
        "not made by a checked constructor"
    );
    assert_eq!(
        Datatype::vector_of(3, u64::MAX / 2, Datatype::contiguous(1)).unwrap_err(),
        TypeError::TooLarge
    );
    assert!(Datatype::vector(3, 2, 1).overlaps());
    assert!(!Datatype::vector(3, 2, 2).overlaps());
    // A transpose interleaves its columns without a shared element.
    let transpose = Datatype::vector_of(4, 1, Datatype::vector(4, 1, 4)).unwrap();
    assert!(!transpose.overlaps());
    assert!(Datatype::vector_of(5, 1, Datatype::vector(4, 1, 4))
        .unwrap()
        .overlaps());
}

#[test]
fn an_indexed_layout_needs_one_first_more_than_displacements() {
    // Made on the host for a kernel's arguments: nothing is read here.
    let rt = dcuda::Runtime::builder()
        .backend(dcuda::BackendChoice::Emulator)
        .build()
        .unwrap();
    let (firsts, displacements) = (
        rt.upload(&[0u32, 2, 5]).unwrap(),
        rt.upload(&[4u32, 9]).unwrap(),
    );
    let ok = dcuda::Indexed::new(firsts.slice(), displacements.slice()).unwrap();
    assert_eq!(ok.blocks_count(), 2);
    let short = dcuda::Indexed::new(displacements.slice(), displacements.slice()).unwrap_err();
    assert_eq!(
        short,
        TypeError::IndexLengths {
            firsts: 2,
            displacements: 2
        }
    );
    assert_eq!(
        short.to_string(),
        "an indexed layout has 2 firsts for 2 displacements: it needs one more first than displacements"
    );
}
