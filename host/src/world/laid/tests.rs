use super::*;

fn header(dt: &Datatype, first: u64, elem: u32, count: u32) -> Vec<u8> {
    bytemuck::bytes_of(&dt.piece(first, elem, count)).to_vec()
}

/// Every element's offset, in order, as the datatype walks them.
fn offsets(dt: &Datatype, first: u64, count: u64) -> Vec<u64> {
    (first..first + count).map(|e| dt.offset(e)).collect()
}

/// The elements the rectangles cover, in order.
fn covered(rects: &[Rect]) -> Vec<u64> {
    let mut out = Vec::new();
    for r in rects {
        for row in 0..r.rows {
            for x in 0..r.width {
                out.push(r.start + row * r.pitch + x);
            }
        }
    }
    out
}

#[test]
fn a_column_piece_is_one_rectangle() {
    let column = Datatype::vector(4096, 1, 4096).shifted(1).unwrap();
    let laid = read_header(&header(&column, 100, 4, 1000), 4000).unwrap();
    let rects = laid.rects();
    assert_eq!(
        rects,
        [Rect {
            start: 100 * 4096 + 1,
            width: 1,
            pitch: 4096,
            rows: 1000
        }]
    );
    assert_eq!(covered(&rects), offsets(&column, 100, 1000));
}

#[test]
fn a_sub_block_piece_is_a_rectangle_a_plane_and_its_ends() {
    let block = Datatype::subarray_3d([32, 32, 32], [8, 8, 8], [4, 4, 4]).unwrap();
    // From the middle of a row to the middle of a row two planes on.
    let (first, count) = (5, 2 * 64 + 7);
    let laid = read_header(&header(&block, first, 8, count as u32), count * 8).unwrap();
    let rects = laid.rects();
    assert_eq!(covered(&rects), offsets(&block, first, count));
    // The partial first row, the rest of its plane, the next plane, one
    // row of the third and the partial last row.
    assert_eq!(rects.len(), 5, "{rects:?}");
    assert_eq!(rects[1].pitch, 32);
    assert_eq!(rects[2].rows, 8);
}

#[test]
fn any_piece_of_any_layout_covers_its_elements_in_order() {
    let layouts = [
        Datatype::contiguous(50),
        Datatype::vector(7, 3, 5),
        Datatype::subarray_2d([9, 11], [4, 5], [2, 3]).unwrap(),
        Datatype::vector_of(3, 200, Datatype::vector(4, 2, 9)).unwrap(),
    ];
    for dt in layouts {
        for first in 0..dt.size() {
            for count in 0..=dt.size() - first {
                let h = header(&dt, first, 2, count as u32);
                let rects = read_header(&h, 2 * count).unwrap().rects();
                assert_eq!(
                    covered(&rects),
                    offsets(&dt, first, count),
                    "{dt:?} {first} {count}"
                );
            }
        }
    }
}

#[test]
fn bad_headers_are_refused_with_the_reason() {
    let column = Datatype::vector(16, 1, 16);
    let good = header(&column, 0, 4, 16);
    assert!(read_header(&good, 64).is_ok());
    let err = read_header(&good, 60).unwrap_err();
    assert!(
        err.contains("16 elements of 4 bytes, but 60 bytes"),
        "{err}"
    );
    let err = read_header(&header(&column, 10, 4, 16), 64).unwrap_err();
    assert!(err.contains("elements 10..26 of a datatype of 16"), "{err}");
    let err = read_header(&header(&column, 0, 0, 16), 0).unwrap_err();
    assert!(err.contains("0 bytes"), "{err}");
    assert!(read_header(&good[..10], 64)
        .unwrap_err()
        .contains("shorter than its header"));
    let mut huge: LaidPiece = bytemuck::pod_read_unaligned(&good);
    huge.strides[0] = u64::MAX / 2;
    let err = read_header(bytemuck::bytes_of(&huge), 64).unwrap_err();
    assert!(err.contains("names no datatype"), "{err}");
}

/// Every (window byte, packed byte) pair the 2D copies move.
fn pairs_2d(copies: impl Iterator<Item = Copy2d>) -> Vec<(u64, usize)> {
    let mut out = Vec::new();
    for c in copies {
        for r in 0..c.rows {
            for x in 0..c.width {
                out.push((
                    c.window + (r * c.pitch + x) as u64,
                    c.packed.start + r * c.width + x,
                ));
            }
        }
    }
    out
}

/// The same pairs from the stacked 3D copies.
fn pairs_3d(copies: &[Copy3d]) -> Vec<(u64, usize)> {
    let mut out = Vec::new();
    for c in copies {
        let packed = c.packed(0);
        for p in 0..c.planes {
            for r in 0..c.rows {
                for x in 0..c.width {
                    let w = c.window.addr + (p * c.window.plane + r * c.window.pitch + x) as u64;
                    out.push((
                        w,
                        packed.addr as usize + p * packed.plane + r * packed.pitch + x,
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn a_sub_block_piece_of_whole_planes_is_one_3d_copy() {
    let block = Datatype::subarray_3d([512, 512, 512], [64, 64, 64], [64, 64, 64]).unwrap();
    // Planes 4 to 6 of f32 (a piece holds a little less than 64 KiB).
    let laid = read_header(&header(&block, 16384, 4, 12288), 49152).unwrap();
    let rects = laid.rects();
    let copies = stacked(laid.copies(&rects, 1 << 20));
    assert_eq!(copies.len(), 1, "{copies:?}");
    let c = &copies[0];
    assert_eq!((c.width, c.rows, c.planes), (256, 64, 3));
    assert_eq!((c.window.pitch, c.window.plane), (2048, 1 << 20));
    assert_eq!(pairs_3d(&copies), pairs_2d(laid.copies(&rects, 1 << 20)));
}

#[test]
fn stacking_moves_every_byte_where_the_2d_copies_do() {
    let layouts = [
        Datatype::contiguous(50),
        Datatype::vector(7, 3, 5),
        Datatype::subarray_2d([9, 11], [4, 5], [2, 3]).unwrap(),
        Datatype::vector_of(3, 200, Datatype::vector(4, 2, 9)).unwrap(),
        Datatype::subarray_3d([6, 7, 8], [3, 4, 5], [1, 2, 3]).unwrap(),
        Datatype::vector_of(4, 30, Datatype::vector(3, 1, 7)).unwrap(),
    ];
    for dt in layouts {
        for first in 0..dt.size() {
            for count in 0..=dt.size() - first {
                let h = header(&dt, first, 2, count as u32);
                let laid = read_header(&h, 2 * count).unwrap();
                let rects = laid.rects();
                let copies = stacked(laid.copies(&rects, 64));
                assert_eq!(
                    pairs_3d(&copies),
                    pairs_2d(laid.copies(&rects, 64)),
                    "{dt:?} {first} {count}"
                );
            }
        }
    }
}

/// The rectangles as they were found before cursors: an offset by
/// divisions for every run.
fn rects_by_offsets(laid: &Laid) -> Vec<Rect> {
    let mut out = Vec::new();
    let (block, end) = (laid.dt.block_len() as u64, laid.first + laid.count);
    let mut e = laid.first;
    while e < end {
        let width = if laid.dt.is_contiguous() {
            end - e
        } else {
            (block - e % block).min(end - e)
        };
        laid.join(&mut out, laid.dt.offset(e), width);
        e += width;
    }
    out
}

#[test]
fn runs_found_by_a_cursor_make_the_rectangles_offsets_make() {
    let layouts = [
        Datatype::contiguous(50),
        Datatype::vector(7, 3, 5),
        Datatype::vector(4096, 1, 4096),
        Datatype::subarray_2d([9, 11], [4, 5], [2, 3]).unwrap(),
        Datatype::subarray_3d([32, 32, 32], [8, 8, 8], [4, 4, 4]).unwrap(),
        Datatype::subarray_3d([512, 512, 512], [64, 64, 64], [0, 0, 0]).unwrap(),
        Datatype::vector_of(3, 200, Datatype::vector(4, 2, 9)).unwrap(),
        // Planes one after another: a plane's rectangle continues the last.
        Datatype::vector_of(3, 16, Datatype::vector(4, 2, 4)).unwrap(),
    ];
    for dt in layouts {
        let n = dt.size();
        let firsts = [0, 1, n / 3, n / 2 + 1, n.saturating_sub(2)];
        for first in firsts.into_iter().filter(|&f| f < n) {
            for count in [0, 1, 2, 63, 64, 65, 4095, 61_440, n - first] {
                // At most a staging half of 4-byte elements.
                let count = count.min(n - first).min(MOST / 4);
                let h = header(&dt, first, 4, count as u32);
                let laid = read_header(&h, 4 * count).unwrap();
                assert_eq!(
                    laid.rects(),
                    rects_by_offsets(&laid),
                    "{dt:?} {first} {count}"
                );
            }
        }
    }
}
