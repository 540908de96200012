//! The command line shared by the benchmark programs.

/// `[--quick] [--out DIR] [--baseline PATH] [--only SECTION]`.
pub struct Options {
    /// Fewer iterations and sizes.
    pub quick: bool,
    /// Where results go (default `bench-out`).
    pub out_dir: std::path::PathBuf,
    /// A baseline program built on the GPU machine (`bench_collectives`:
    /// `bench/baselines/grid_collectives.cu`).
    pub baseline: Option<std::path::PathBuf>,
    /// Measure only this section (the program checks the name).
    pub only: Option<String>,
}

impl Options {
    /// Parses the process's arguments; `program` names it in the usage.
    pub fn parse(program: &str) -> Result<Options, String> {
        let mut args = std::env::args().skip(1);
        let mut o = Options {
            quick: false,
            out_dir: "bench-out".into(),
            baseline: None,
            only: None,
        };
        while let Some(a) = args.next() {
            match a.as_str() {
                "--quick" => o.quick = true,
                "--out" => o.out_dir = args.next().ok_or("--out needs a directory")?.into(),
                "--baseline" => {
                    o.baseline = Some(args.next().ok_or("--baseline needs a program")?.into())
                }
                "--only" => o.only = Some(args.next().ok_or("--only needs a section")?),
                other => {
                    return Err(format!(
                        "unknown argument {other:?}; usage: {program} [--quick] [--out DIR] [--baseline PATH] [--only SECTION]"
                    ))
                }
            }
        }
        Ok(o)
    }

    /// For a program without sections: refuses `--only`.
    pub fn no_sections(self, program: &str) -> Result<Options, String> {
        match &self.only {
            Some(o) => Err(format!("--only {o:?}: {program} has no sections")),
            None => Ok(self),
        }
    }

    /// Whether `section` is measured; an `--only` naming none of
    /// `sections` is an error.
    pub fn wants(&self, section: &str, sections: &[&str]) -> Result<bool, String> {
        match &self.only {
            None => Ok(true),
            Some(o) if sections.contains(&o.as_str()) => Ok(o == section),
            Some(o) => Err(format!("--only {o:?}: the sections are {sections:?}")),
        }
    }
}

/// What a benchmark whose table joins a baseline's results is asked to do:
/// `--join DIR` prints the table from both CSV files in `DIR`; anything
/// else measures, with [`Options`].
pub enum Mode {
    /// Measure, with these options.
    Measure(Options),
    /// Join the results in this directory.
    Join(std::path::PathBuf),
}

impl Mode {
    /// Parses the process's arguments; `program` names it in the usage.
    pub fn parse(program: &str) -> Result<Mode, String> {
        let args: Vec<String> = std::env::args().collect();
        if args.get(1).map(String::as_str) == Some("--join") {
            let dir = args.get(2).ok_or("--join needs a directory")?;
            return Ok(Mode::Join(dir.into()));
        }
        Options::parse(program)?
            .no_sections(program)
            .map(Mode::Measure)
    }
}
