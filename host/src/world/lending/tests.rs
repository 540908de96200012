use super::*;
use crate::backend::emu::EmuDevice;

fn lending() -> Arc<Lending> {
    Lending::new(Arc::new(EmuDevice::new(4, 1, false)))
}

#[test]
fn short_messages_are_not_lent_memory() {
    let l = lending();
    assert!(l.take(LEND_FROM - 1, 128).is_none());
    assert!(l.lend(100).is_none());
    assert_eq!(l.lent(), 0);
}

#[test]
fn a_region_comes_back_when_dropped_and_is_used_again() {
    let l = lending();
    let a = l.take(LEND_FROM, 128).unwrap();
    let at = a.addr();
    assert_eq!((a.bytes().len(), l.lent()), (LEND_FROM, 1));
    drop(a);
    assert_eq!(l.lent(), 0);
    // Region of two rounds (64 KiB + 128): a shorter message fits it.
    let b = l.take(LEND_FROM + 64, 0).unwrap();
    assert_eq!(b.addr(), at);
    let c = l.take(LEND_FROM, 0).unwrap();
    assert_ne!(c.addr(), at);
    assert_eq!(l.lent(), 2);
}

#[test]
fn appends_stay_inside_the_region() {
    let l = lending();
    let end = 2 * ROUND;
    let mut b = l.take(end - 8, 8).unwrap();
    b.bytes_mut().fill(7);
    b.append(&[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    assert_eq!(b.bytes().len(), end);
    assert_eq!(&b.bytes()[end - 9..], &[7, 1, 2, 3, 4, 5, 6, 7, 8]);
    let e = b.append(&[9]).unwrap_err();
    assert!(e.to_string().contains("outside a buffer of 131072"), "{e}");
    assert_eq!(b.bytes().len(), end);
}

#[test]
fn no_more_than_most_regions_are_made() {
    let l = lending();
    let held: Vec<_> = (0..MOST).map(|_| l.take(LEND_FROM, 0).unwrap()).collect();
    assert!(l.take(LEND_FROM, 0).is_none());
    drop(held);
    assert!(l.take(LEND_FROM, 0).is_some());
}

#[test]
fn copies_reach_lent_memory_through_its_mapped_address() {
    let l = lending();
    let mut src = l.take(LEND_FROM, 0).unwrap();
    for (i, b) in src.bytes_mut().iter_mut().enumerate() {
        *b = (i % 251) as u8;
    }
    let mut dst = l.lend(LEND_FROM).unwrap();
    let to = dst.mapped().unwrap();
    l.copy(Side::In, to, src.addr(), LEND_FROM).unwrap();
    assert_eq!(dst.bytes_mut(), src.bytes());
}
