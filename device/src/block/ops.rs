//! What collectives combine: values that fit a shuffle, and the ways to
//! combine them.

pub use crate::arch::block::LaneWord as Reducible;

macro_rules! reducible {
    ($($t:ty => |$v:ident| $to:expr, |$w:ident| $from:expr, $narrow:expr;)*) => {$(
        impl Reducible for $t {
            #[inline(always)]
            fn to_word(self) -> u64 { let $v = self; $to }
            #[inline(always)]
            fn from_word($w: u64) -> Self { $from }
            const NARROW: bool = $narrow;
        }
    )*};
}

reducible! {
    u32 => |v| v as u64, |w| w as u32, true;
    i32 => |v| v as u32 as u64, |w| w as u32 as i32, true;
    f32 => |v| v.to_bits() as u64, |w| f32::from_bits(w as u32), true;
    u64 => |v| v, |w| w, false;
    i64 => |v| v as u64, |w| w as i64, false;
    f64 => |v| v.to_bits(), |w| f64::from_bits(w), false;
}

/// An associative, commutative way to combine values.
pub trait ReduceOp<T>: Copy {
    /// The value that changes nothing: `combine(identity(), x) == x`.
    fn identity() -> T;
    /// Combines two values.
    fn combine(a: T, b: T) -> T;
}

/// Sum (wrapping for integers).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum;
/// Minimum.
#[derive(Clone, Copy, Debug, Default)]
pub struct Min;
/// Maximum.
#[derive(Clone, Copy, Debug, Default)]
pub struct Max;
/// Product (wrapping for integers).
#[derive(Clone, Copy, Debug, Default)]
pub struct Prod;
/// Bitwise and (integers).
#[derive(Clone, Copy, Debug, Default)]
pub struct BitAnd;
/// Bitwise or (integers).
#[derive(Clone, Copy, Debug, Default)]
pub struct BitOr;
/// Bitwise exclusive or (integers).
#[derive(Clone, Copy, Debug, Default)]
pub struct BitXor;

macro_rules! int_ops {
    ($($t:ty),*) => {$(
        impl ReduceOp<$t> for Sum {
            fn identity() -> $t { 0 }
            fn combine(a: $t, b: $t) -> $t { a.wrapping_add(b) }
        }
        impl ReduceOp<$t> for Min {
            fn identity() -> $t { <$t>::MAX }
            fn combine(a: $t, b: $t) -> $t { if b < a { b } else { a } }
        }
        impl ReduceOp<$t> for Max {
            fn identity() -> $t { <$t>::MIN }
            fn combine(a: $t, b: $t) -> $t { if b > a { b } else { a } }
        }
        impl ReduceOp<$t> for Prod {
            fn identity() -> $t { 1 }
            fn combine(a: $t, b: $t) -> $t { a.wrapping_mul(b) }
        }
        impl ReduceOp<$t> for BitAnd {
            fn identity() -> $t { !0 }
            fn combine(a: $t, b: $t) -> $t { a & b }
        }
        impl ReduceOp<$t> for BitOr {
            fn identity() -> $t { 0 }
            fn combine(a: $t, b: $t) -> $t { a | b }
        }
        impl ReduceOp<$t> for BitXor {
            fn identity() -> $t { 0 }
            fn combine(a: $t, b: $t) -> $t { a ^ b }
        }
    )*};
}
int_ops!(u32, i32, u64, i64);

macro_rules! float_ops {
    ($($t:ty),*) => {$(
        impl ReduceOp<$t> for Sum {
            fn identity() -> $t { 0.0 }
            fn combine(a: $t, b: $t) -> $t { a + b }
        }
        impl ReduceOp<$t> for Min {
            fn identity() -> $t { <$t>::INFINITY }
            fn combine(a: $t, b: $t) -> $t { a.min(b) }
        }
        impl ReduceOp<$t> for Max {
            fn identity() -> $t { <$t>::NEG_INFINITY }
            fn combine(a: $t, b: $t) -> $t { a.max(b) }
        }
        impl ReduceOp<$t> for Prod {
            fn identity() -> $t { 1.0 }
            fn combine(a: $t, b: $t) -> $t { a * b }
        }
    )*};
}
float_ops!(f32, f64);
