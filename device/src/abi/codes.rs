//! `codes!`: a `#[repr(u32)]` enum with its decoding from a raw value and
//! its name in messages, generated from one list.

macro_rules! codes {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $v:expr => $text:expr,)* }) => {
        $(#[$m])*
        #[repr(u32)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $(#[doc = $text] $variant = $v,)* }
        impl $name {
            /// The code of a raw value.
            #[inline(always)]
            pub fn from_u32(v: u32) -> Option<Self> {
                match v { $($v => Some(Self::$variant),)* _ => None }
            }
            /// Its name in messages.
            pub fn name(self) -> &'static str {
                match self { $(Self::$variant => $text,)* }
            }
        }
    };
}

pub(crate) use codes;
