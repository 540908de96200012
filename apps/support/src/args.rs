//! The command line of an application's programs: flags read one by one,
//! numbers with errors that name the flag, and the checks every program
//! makes of the options they share.

use std::format;
use std::string::String;

/// A command line read flag by flag; errors end with the program's usage.
pub struct Args<I> {
    args: I,
    usage: &'static str,
}

impl<I: Iterator<Item = String>> Args<I> {
    /// `args` without the program's name.
    pub fn new(args: impl IntoIterator<IntoIter = I, Item = String>, usage: &'static str) -> Self {
        Args {
            args: args.into_iter(),
            usage,
        }
    }

    /// The next flag, if any.
    pub fn next_flag(&mut self) -> Option<String> {
        self.args.next()
    }

    /// The value of flag `name`, a number.
    pub fn number(&mut self, name: &str) -> Result<u32, String> {
        let usage = self.usage;
        let v = self
            .args
            .next()
            .ok_or(format!("{name} needs a value; {usage}"))?;
        v.parse()
            .map_err(|_| format!("{name}: `{v}` is not a number; {usage}"))
    }

    /// The value of flag `name`, one of `choices` (name, value).
    pub fn choice<T: Copy>(&mut self, name: &str, choices: &[(&str, T)]) -> Result<T, String> {
        let usage = self.usage;
        let v = self
            .args
            .next()
            .ok_or(format!("{name} needs a value; {usage}"))?;
        let names: std::vec::Vec<&str> = choices.iter().map(|c| c.0).collect();
        choices
            .iter()
            .find(|c| c.0 == v)
            .map(|c| c.1)
            .ok_or(format!(
                "{name}: `{v}` is not one of {}; {usage}",
                names.join(", ")
            ))
    }

    /// The error for a flag no program takes.
    pub fn unknown(&self, flag: &str) -> String {
        format!("unknown option `{flag}`; {}", self.usage)
    }
}

/// What a stencil program runs with unless told otherwise (`--threads`,
/// `--max-registers`, `--batch`); each application names its programs'
/// (`RANKS` for the dcuda program, `BLOCKS` for the baseline).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Threads per rank or block.
    pub threads: u32,
    /// The register cap of the dcuda program.
    pub max_registers: u32,
    /// Points a thread loads before it stores any.
    pub batch: u32,
}

/// `--threads`: a power of two from 32 to 1024.
pub fn check_threads(threads: u32) -> Result<(), String> {
    if threads.is_power_of_two() && (32..=1024).contains(&threads) {
        Ok(())
    } else {
        Err(format!(
            "--threads must be a power of two from 32 to 1024, got {threads}"
        ))
    }
}

/// `--max-registers`: from 16 to 255.
pub fn check_max_registers(cap: u32) -> Result<(), String> {
    if (16..=255).contains(&cap) {
        Ok(())
    } else {
        Err(format!("--max-registers must be from 16 to 255, got {cap}"))
    }
}

/// `--batch`: 1, 2, 4 or 8.
pub fn check_batch(batch: u32) -> Result<(), String> {
    if [1, 2, 4, 8].contains(&batch) {
        Ok(())
    } else {
        Err(format!("--batch must be 1, 2, 4 or 8, got {batch}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_checks_name_the_flag() {
        let mut a = Args::new(["--n".to_string(), "x".to_string()], "usage");
        assert_eq!(a.next_flag().as_deref(), Some("--n"));
        assert_eq!(
            a.number("--n").unwrap_err(),
            "--n: `x` is not a number; usage"
        );
        assert_eq!(a.number("--n").unwrap_err(), "--n needs a value; usage");
        assert!(check_threads(96).unwrap_err().contains("got 96"));
        assert!(check_threads(64).is_ok());
        assert!(check_max_registers(8).is_err());
        assert!(check_batch(3).is_err());
    }
}
