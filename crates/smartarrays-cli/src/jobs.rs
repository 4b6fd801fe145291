//! `smartarrays jobs generate|wordcount|grep|sort|bayes|kmeans`: the Spark scale-up study's
//! five jobs on memory-mapped files (crate `smartarrays-jobs`), with progress bars on a
//! terminal, output files, and a summary (time, throughput, sizes) as text or one JSON line.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use smartarrays_jobs::{
    bayes_classify, bayes_train, generate_file, grep, kmeans, read_points, sort_keys, sort_lines,
    wordcount, DataKind, DataOptions, Input, JobOptions, KMeansOptions, ProgressFn,
};

use crate::bars::Bars;
use crate::output::check_output_path;
use crate::CliResult;

/// The study's jobs on smart arrays and collections.
#[derive(clap::Subcommand)]
pub enum JobsCommand {
    /// Write seeded input: text (Zipf words), reviews (a label, a tab, the text), vectors (numbers
    /// separated by spaces) or keys (one unsigned integer per line).
    Generate(GenerateArgs),
    /// Count the words (pieces of lines between spaces); output `word<TAB>count`, most frequent
    /// first.
    Wordcount(WordcountArgs),
    /// Keep the lines that contain a pattern (default "The", as the study).
    Grep(GrepArgs),
    /// Sort whole lines by their bytes (as the study), or with --numeric the unsigned integers of
    /// a keys file (radix passes per byte of the widest key).
    Sort(SortArgs),
    /// Train multinomial naive Bayes on labelled reviews and classify the lines of a file.
    Bayes(BayesArgs),
    /// K-means (k-means|| initialisation, then Lloyd) over a vectors file.
    Kmeans(KmeansArgs),
}

/// What every job takes.
#[derive(clap::Args)]
pub struct CommonArgs {
    /// Worker threads (default: one per CPU, or SMARTARRAYS_THREADS).
    #[arg(long)]
    threads: Option<usize>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
    /// No progress bars (they are off anyway when stderr is not a terminal).
    #[arg(long)]
    no_progress: bool,
    /// Read every page of the input in before the job starts (MAP_POPULATE), timed apart as
    /// `map_s`, so `job_s` is the work on data in memory (the I/O share of a run).
    #[arg(long)]
    populate: bool,
}

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// text, reviews, vectors or keys.
    kind: String,
    /// Output file.
    #[arg(long, short)]
    output: PathBuf,
    /// Size: bytes, or with a unit (KB, MB, GB; KiB, MiB, GiB). The last line is completed.
    #[arg(long, default_value = "64MB")]
    size: String,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Distinct words (text, reviews).
    #[arg(long, default_value_t = 100_000)]
    vocabulary: usize,
    /// Zipf exponent of word frequencies (text, reviews).
    #[arg(long, default_value_t = 1.0)]
    zipf: f64,
    /// Review classes (labels 1..=classes).
    #[arg(long, default_value_t = 5)]
    classes: usize,
    /// Numbers per vector.
    #[arg(long, default_value_t = 16)]
    dims: usize,
    /// Centres the vectors are drawn around.
    #[arg(long, default_value_t = 8)]
    clusters: usize,
    /// Keys are below 2^key-bits.
    #[arg(long, default_value_t = 32)]
    key_bits: u32,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(clap::Args)]
pub struct WordcountArgs {
    /// Text file.
    input: PathBuf,
    /// Write every word's count here.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Words to print (most frequent first).
    #[arg(long, default_value_t = 5)]
    top: usize,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(clap::Args)]
pub struct GrepArgs {
    /// Text file.
    input: PathBuf,
    /// The substring a line must hold (bytes, case-sensitive).
    #[arg(long, default_value = smartarrays_jobs::STUDY_PATTERN)]
    pattern: String,
    /// Write the matching lines here.
    #[arg(long, short)]
    output: Option<PathBuf>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(clap::Args)]
pub struct SortArgs {
    /// Text file (or keys file with --numeric).
    input: PathBuf,
    /// Sort unsigned integers, one per line, by value.
    #[arg(long)]
    numeric: bool,
    /// Write the sorted lines here.
    #[arg(long, short)]
    output: Option<PathBuf>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(clap::Args)]
pub struct BayesArgs {
    /// Lines to classify (`LABEL<TAB>TEXT`, or text alone).
    input: PathBuf,
    /// Labelled reviews to train on (`LABEL<TAB>TEXT`).
    #[arg(long)]
    train: PathBuf,
    /// Smoothing (1 is Laplace).
    #[arg(long, default_value_t = smartarrays_jobs::LAPLACE)]
    alpha: f64,
    /// Write one predicted label per line here.
    #[arg(long, short)]
    output: Option<PathBuf>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(clap::Args)]
pub struct KmeansArgs {
    /// Vectors file (numbers separated by spaces, one point per line).
    input: PathBuf,
    /// Clusters.
    #[arg(short, long, default_value_t = 8)]
    k: usize,
    /// Lloyd iterations.
    #[arg(long, default_value_t = 4)]
    iterations: usize,
    /// k-means|| rounds (5 in the study's Spark 1.3, 2 in Spark 2 and later).
    #[arg(long, default_value_t = 5)]
    init_steps: usize,
    /// Seed of the initialisation.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Start from these centroids (a vectors file of k lines) instead of k-means||.
    #[arg(long)]
    centroids: Option<PathBuf>,
    /// Write the centroids here.
    #[arg(long, short)]
    output: Option<PathBuf>,
    #[command(flatten)]
    common: CommonArgs,
}

/// Parses `64MB`, `0.5GB`, `512KiB` or a plain byte count.
fn parse_size(text: &str) -> CliResult<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "--size {text}: unknown unit {other:?} (KB, MB, GB, KiB, MiB, GiB)"
            )
            .into())
        }
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("--size {text}: {number:?} is not a number"))?;
    if !(value >= 0.0 && value.is_finite()) {
        return Err(format!("--size {text}: must be a size of zero or more").into());
    }
    Ok((value * scale).round() as u64)
}

impl CommonArgs {
    /// Maps an input (read in first with --populate) and the seconds that took.
    fn open(&self, path: &Path) -> CliResult<(Input, f64)> {
        let started = Instant::now();
        let input = if self.populate {
            Input::open_populated(path)?
        } else {
            Input::open(path)?
        };
        Ok((input, started.elapsed().as_secs_f64()))
    }

    fn options(&self) -> CliResult<JobOptions> {
        let mut options = match self.threads {
            Some(threads) => JobOptions::threads(threads)?,
            None => JobOptions::new(),
        };
        if let Some(bars) = Bars::for_terminal(!self.no_progress) {
            let finished: Mutex<Vec<String>> = Mutex::default();
            let started: Mutex<Vec<String>> = Mutex::default();
            let progress: Arc<ProgressFn> = Arc::new(move |stage: &str, done, total| {
                let (Ok(mut started), Ok(mut finished)) = (started.lock(), finished.lock()) else {
                    return;
                };
                if finished.iter().any(|s| s == stage) {
                    return;
                }
                if !started.iter().any(|s| s == stage) {
                    started.push(stage.to_string());
                    bars.started(stage, total);
                }
                bars.advanced(stage, done);
                if done >= total {
                    bars.finished(stage);
                    finished.push(stage.to_string());
                }
            });
            options = options.progress(progress);
        }
        Ok(options)
    }
}

/// A job's summary: printed as `key value` pairs, or as one JSON object.
struct Summary {
    fields: serde_json::Map<String, serde_json::Value>,
}

impl Summary {
    fn new(job: &str, input: &Path, bytes: usize, options: &JobOptions) -> CliResult<Summary> {
        let mut summary = Summary {
            fields: serde_json::Map::new(),
        };
        summary.set("job", job);
        summary.set("input", input.display().to_string());
        summary.set("bytes", bytes);
        summary.set("threads", options.runtime()?.threads());
        Ok(summary)
    }

    fn set(&mut self, key: &str, value: impl Into<serde_json::Value>) {
        self.fields.insert(key.to_string(), value.into());
    }

    fn timed(&mut self, key: &str, started: Instant) {
        self.seconds(key, started.elapsed().as_secs_f64());
    }

    fn seconds(&mut self, key: &str, seconds: f64) {
        self.set(key, (seconds * 1e6).round() / 1e6);
    }

    fn print(&mut self, json: bool) {
        if let Some(bytes) = peak_rss_bytes() {
            self.set("peak_rss_bytes", bytes);
        }
        let seconds: f64 = ["map_s", "read_s", "job_s"]
            .iter()
            .filter_map(|k| self.fields.get(*k).and_then(serde_json::Value::as_f64))
            .sum();
        let bytes = self
            .fields
            .get("bytes")
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0);
        if seconds > 0.0 {
            self.set("mb_per_s", (bytes / seconds / 1e6 * 10.0).round() / 10.0);
        }
        if json {
            println!("{}", serde_json::Value::Object(self.fields.clone()));
        } else {
            let text: Vec<String> = self
                .fields
                .iter()
                .map(|(k, v)| match v {
                    serde_json::Value::String(s) => format!("{k} {s}"),
                    other => format!("{k} {other}"),
                })
                .collect();
            println!("{}", text.join(", "));
        }
    }
}

/// The process's peak resident memory so far (`VmHWM`; Linux only).
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Opens `path` for writing (after [`check_output_path`]) and runs `write` on a buffer of it.
fn write_output(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> CliResult {
    let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

fn check_output(path: Option<&PathBuf>) -> CliResult {
    path.map_or(Ok(()), |p| check_output_path(p, "--output"))
}

pub fn run(command: &JobsCommand) -> CliResult {
    match command {
        JobsCommand::Generate(args) => run_generate(args),
        JobsCommand::Wordcount(args) => run_wordcount(args),
        JobsCommand::Grep(args) => run_grep(args),
        JobsCommand::Sort(args) => run_sort(args),
        JobsCommand::Bayes(args) => run_bayes(args),
        JobsCommand::Kmeans(args) => run_kmeans(args),
    }
}

fn run_generate(args: &GenerateArgs) -> CliResult {
    check_output_path(&args.output, "--output")?;
    let options = args.common.options()?;
    let kind: DataKind = args.kind.parse()?;
    let data = DataOptions {
        kind,
        bytes: parse_size(&args.size)?,
        seed: args.seed,
        vocabulary: args.vocabulary,
        zipf: args.zipf,
        classes: args.classes,
        dims: args.dims,
        clusters: args.clusters,
        key_bits: args.key_bits,
    };
    let started = Instant::now();
    let written = generate_file(&data, &args.output, &options)?;
    let mut summary = Summary::new("generate", &args.output, written as usize, &options)?;
    summary.set("kind", args.kind.as_str());
    summary.timed("generate_s", started);
    summary.print(args.common.json);
    Ok(())
}

fn run_wordcount(args: &WordcountArgs) -> CliResult {
    check_output(args.output.as_ref())?;
    let options = args.common.options()?;
    let (input, map_s) = args.common.open(&args.input)?;
    let mut summary = Summary::new("wordcount", &args.input, input.len(), &options)?;
    summary.seconds("map_s", map_s);
    let started = Instant::now();
    let counts = wordcount(&input, &options)?;
    summary.timed("job_s", started);
    summary.set("words", counts.tokens());
    summary.set("distinct", counts.distinct());
    summary.set("memory_bytes", counts.memory_bytes());
    let top: Vec<String> = counts
        .sorted()
        .into_iter()
        .take(args.top)
        .map(|(w, n)| format!("{w}:{n}"))
        .collect();
    summary.set("top", top.join(" "));
    if let Some(path) = &args.output {
        let started = Instant::now();
        write_output(path, |out| counts.write_to(out))?;
        summary.timed("write_s", started);
    }
    summary.print(args.common.json);
    Ok(())
}

fn run_grep(args: &GrepArgs) -> CliResult {
    check_output(args.output.as_ref())?;
    let options = args.common.options()?;
    let (input, map_s) = args.common.open(&args.input)?;
    let mut summary = Summary::new("grep", &args.input, input.len(), &options)?;
    summary.seconds("map_s", map_s);
    let started = Instant::now();
    let found = grep(&input, &args.pattern, &options)?;
    summary.timed("job_s", started);
    summary.set("lines", found.len());
    summary.set("matched_bytes", found.bytes());
    if let Some(path) = &args.output {
        let started = Instant::now();
        write_output(path, |out| found.write_to(&input, out))?;
        summary.timed("write_s", started);
    }
    summary.print(args.common.json);
    Ok(())
}

fn run_sort(args: &SortArgs) -> CliResult {
    check_output(args.output.as_ref())?;
    let options = args.common.options()?;
    let (input, map_s) = args.common.open(&args.input)?;
    let mut summary = Summary::new("sort", &args.input, input.len(), &options)?;
    summary.seconds("map_s", map_s);
    let started = Instant::now();
    if args.numeric {
        let sorted = sort_keys(&input, &options)?;
        summary.timed("job_s", started);
        summary.set("keys", sorted.len());
        summary.set("bits", sorted.bits);
        summary.set("keys_bytes", sorted.keys.packed_bytes());
        summary.set("passes", sorted.passes);
        if let Some(path) = &args.output {
            let started = Instant::now();
            let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut out = BufWriter::with_capacity(1 << 20, file);
            sorted.write_to(&mut out, &options)?;
            out.flush()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            summary.timed("write_s", started);
        }
    } else {
        let sorted = sort_lines(&input, &options)?;
        summary.timed("job_s", started);
        summary.set("lines", sorted.len());
        if let Some(path) = &args.output {
            let started = Instant::now();
            write_output(path, |out| sorted.write_to(&input, out))?;
            summary.timed("write_s", started);
        }
    }
    summary.print(args.common.json);
    Ok(())
}

fn run_bayes(args: &BayesArgs) -> CliResult {
    check_output(args.output.as_ref())?;
    let options = args.common.options()?;
    let (train, train_map_s) = args.common.open(&args.train)?;
    let (input, map_s) = args.common.open(&args.input)?;
    let mut summary = Summary::new("bayes", &args.input, input.len(), &options)?;
    summary.seconds("map_s", map_s + train_map_s);
    let started = Instant::now();
    let model = bayes_train(&train, args.alpha, &options)?;
    summary.timed("train_s", started);
    summary.set("train_bytes", train.len());
    summary.set("classes", model.labels().len());
    summary.set("vocabulary", model.vocabulary());
    summary.set("model_bytes", model.memory_bytes());
    summary.set("model_placement", "replicated");
    summary.set("model_replicas", model.replicas());
    let started = Instant::now();
    let predicted = bayes_classify(&model, &input, &options)?;
    summary.timed("job_s", started);
    summary.set("lines", predicted.classes.len());
    if let Some(accuracy) = predicted.accuracy() {
        summary.set("accuracy", (accuracy * 1e4).round() / 1e4);
    }
    if let Some(path) = &args.output {
        let started = Instant::now();
        write_output(path, |out| predicted.write_to(&model, out))?;
        summary.timed("write_s", started);
    }
    summary.print(args.common.json);
    Ok(())
}

fn run_kmeans(args: &KmeansArgs) -> CliResult {
    check_output(args.output.as_ref())?;
    let options = args.common.options()?;
    let (input, map_s) = args.common.open(&args.input)?;
    let initial = match &args.centroids {
        Some(path) => {
            let given = read_points(&Input::open(path)?, &JobOptions::new())?;
            Some(
                (0..given.len())
                    .flat_map(|i| given.row(i).to_vec())
                    .collect(),
            )
        }
        None => None,
    };
    let mut summary = Summary::new("kmeans", &args.input, input.len(), &options)?;
    summary.seconds("map_s", map_s);
    let started = Instant::now();
    let points = read_points(&input, &options)?;
    summary.timed("read_s", started);
    summary.set("points", points.len());
    summary.set("dims", points.dims());
    let settings = KMeansOptions {
        k: args.k,
        iterations: args.iterations,
        init_steps: args.init_steps,
        seed: args.seed,
        initial,
    };
    let started = Instant::now();
    let result = kmeans(&points, &settings, &options)?;
    summary.timed("job_s", started);
    summary.set("k", result.k());
    summary.set("cost", result.cost);
    summary.set("init_passes", result.init_passes);
    summary.set("iterations", result.iterations);
    summary.set("candidates", result.candidates);
    summary.set("centroids_placement", "replicated");
    summary.set("centroid_replicas", result.centroid_replicas);
    if let Some(path) = &args.output {
        let started = Instant::now();
        write_output(path, |out| result.write_to(out))?;
        summary.timed("write_s", started);
    }
    summary.print(args.common.json);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_take_decimal_and_binary_units() {
        assert_eq!(parse_size("64MB").unwrap(), 64_000_000);
        assert_eq!(parse_size("0.5GB").unwrap(), 500_000_000);
        assert_eq!(parse_size("2KiB").unwrap(), 2048);
        assert_eq!(parse_size("100").unwrap(), 100);
        assert!(parse_size("1XB").is_err());
        assert!(parse_size("-1MB").is_err());
    }
}
