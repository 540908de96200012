//! The command line shared by the benchmark programs.

/// `[--quick] [--out DIR]`.
pub struct Options {
    /// Fewer iterations and sizes.
    pub quick: bool,
    /// Where results go (default `bench-out`).
    pub out_dir: std::path::PathBuf,
}

impl Options {
    /// Parses the process's arguments; `program` names it in the usage.
    pub fn parse(program: &str) -> Result<Options, String> {
        let mut args = std::env::args().skip(1);
        let mut o = Options {
            quick: false,
            out_dir: "bench-out".into(),
        };
        while let Some(a) = args.next() {
            match a.as_str() {
                "--quick" => o.quick = true,
                "--out" => o.out_dir = args.next().ok_or("--out needs a directory")?.into(),
                other => {
                    return Err(format!(
                        "unknown argument {other:?}; usage: {program} [--quick] [--out DIR]"
                    ))
                }
            }
        }
        Ok(o)
    }
}
