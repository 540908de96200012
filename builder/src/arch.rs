//! GPU architectures: parsing and the PTX ISA each needs.

use crate::Error;
use std::fmt;

/// A GPU architecture, `sm_XY` (compute capability X.Y).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Arch(pub u32);

impl Arch {
    /// `sm_70` (Volta, V100): the oldest architecture with the PTX memory
    /// model (scoped acquire/release) and `nanosleep` that dcuda relies on.
    pub const DEFAULT: Arch = Arch(70);

    /// Parses `sm_90`, `90` or `compute_90`.
    pub fn parse(s: &str) -> Result<Arch, Error> {
        let digits = s
            .trim()
            .trim_start_matches("sm_")
            .trim_start_matches("compute_");
        match digits.parse::<u32>() {
            Ok(n) if n >= 70 => Ok(Arch(n)),
            Ok(n) => Err(Error::Arch(format!(
                "sm_{n} is older than sm_70; dcuda needs the PTX memory model of Volta or newer"
            ))),
            Err(_) => Err(Error::Arch(format!(
                "`{s}` is not an architecture (expected e.g. sm_90)"
            ))),
        }
    }

    /// The lowest PTX ISA version that has every instruction dcuda emits
    /// (`nanosleep` needs 6.3) and that supports this architecture.
    pub fn ptx_isa(self) -> u32 {
        match self.0 {
            0..=75 => 63,
            76..=80 => 70,
            81..=86 => 71,
            87 => 74,
            88..=90 => 78,
            91..=100 => 86,
            _ => 88,
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_architectures() {
        assert_eq!(Arch::parse("sm_90").unwrap(), Arch(90));
        assert_eq!(Arch::parse(" 80 ").unwrap(), Arch(80));
        assert_eq!(Arch::parse("compute_75").unwrap(), Arch(75));
        assert!(Arch::parse("sm_60")
            .unwrap_err()
            .to_string()
            .contains("older than sm_70"));
        assert!(Arch::parse("volta")
            .unwrap_err()
            .to_string()
            .contains("`volta`"));
    }

    #[test]
    fn ptx_isa_has_nanosleep_and_supports_the_architecture() {
        assert_eq!(Arch(70).ptx_isa(), 63);
        assert_eq!(Arch(80).ptx_isa(), 70);
        assert_eq!(Arch(90).ptx_isa(), 78);
        assert!(Arch(100).ptx_isa() >= 86);
    }
}
