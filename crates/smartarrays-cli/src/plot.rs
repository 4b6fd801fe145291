//! Plots of benchmark results with the plotters crate: grouped bars of time per placement for
//! each bit width, the way the paper's Figure 10 shows the aggregation job. SVG and PNG output,
//! chosen by the file extension. Text is drawn with a TrueType font found on the system
//! (DejaVu Sans from Debian's fonts-dejavu-core, or any other .ttf under /usr/share/fonts).

use std::path::Path;
use std::sync::OnceLock;

use plotters::prelude::*;

use crate::bench_aggregate::Measurement;
use crate::CliResult;

const PALETTE: [RGBColor; 8] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0x9c, 0x75, 0x5f),
];

/// Registers a system TrueType font as "sans-serif" once; plotters needs it to lay out text.
fn ensure_font() -> CliResult {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let preferred = [
                "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/TTF/DejaVuSans.ttf",
            ];
            let path = preferred
                .iter()
                .map(std::path::PathBuf::from)
                .find(|p| p.exists())
                .or_else(|| find_ttf(Path::new("/usr/share/fonts")));
            let path = path.ok_or(
                "plots need a TrueType font: install Debian's fonts-dejavu-core (make setup does)",
            )?;
            let bytes: &'static [u8] = Box::leak(
                std::fs::read(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?
                    .into_boxed_slice(),
            );
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
                .map_err(|_| format!("{} is not a usable font", path.display()))
        })
        .clone()
        .map_err(Into::into)
}

fn find_ttf(directory: &Path) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(directory).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_ttf(&path) {
                return Some(found);
            }
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ttf"))
        {
            return Some(path);
        }
    }
    None
}

/// Draws `measurements` as bars grouped by bit width, one colour per series (placement or
/// baseline), into `path` (.svg or .png).
pub fn grouped_bars(path: &Path, title: &str, measurements: &[Measurement]) -> CliResult {
    ensure_font()?;
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let size = (1100, 560);
    match extension.as_deref() {
        Some("svg") => draw(
            SVGBackend::new(path, size).into_drawing_area(),
            title,
            measurements,
        ),
        Some("png") => draw(
            BitMapBackend::new(path, size).into_drawing_area(),
            title,
            measurements,
        ),
        _ => Err(format!("{}: plot files must end in .svg or .png", path.display()).into()),
    }
}

fn draw<B: DrawingBackend>(
    area: DrawingArea<B, plotters::coord::Shift>,
    title: &str,
    measurements: &[Measurement],
) -> CliResult
where
    B::ErrorType: 'static,
{
    let mut widths: Vec<u32> = measurements.iter().map(|m| m.bits).collect();
    widths.dedup();
    let mut series: Vec<&str> = Vec::new();
    for m in measurements {
        if !series.contains(&m.series.as_str()) {
            series.push(&m.series);
        }
    }
    let highest = measurements
        .iter()
        .map(|m| m.median_ms)
        .fold(0.0, f64::max)
        .max(1e-6);
    area.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..widths.len() as f64, 0.0..highest * 1.15)?;
    let labels = widths.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(widths.len() * 2 + 1)
        .x_label_formatter(&|x| {
            let centre = x - x.floor();
            if (centre - 0.5).abs() < 0.01 {
                labels
                    .get(x.floor() as usize)
                    .map_or(String::new(), |b| format!("{b} bits"))
            } else {
                String::new()
            }
        })
        .y_desc("median time (ms)")
        .axis_desc_style(("sans-serif", 15))
        .draw()?;
    let bar = 0.8 / series.len().max(1) as f64;
    for (index, name) in series.iter().enumerate() {
        let colour = PALETTE[index % PALETTE.len()];
        let bars: Vec<Rectangle<(f64, f64)>> = measurements
            .iter()
            .filter(|m| m.series == *name)
            .filter_map(|m| {
                let group = widths.iter().position(|&w| w == m.bits)? as f64;
                let left = group + 0.1 + index as f64 * bar;
                Some(Rectangle::new(
                    [(left, 0.0), (left + bar * 0.92, m.median_ms)],
                    colour.filled(),
                ))
            })
            .collect();
        chart
            .draw_series(bars)?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    area.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_and_png_plots_are_written() {
        let measurements = vec![
            Measurement {
                bits: 10,
                series: "os".into(),
                median_ms: 3.0,
            },
            Measurement {
                bits: 10,
                series: "replicated".into(),
                median_ms: 2.0,
            },
            Measurement {
                bits: 64,
                series: "os".into(),
                median_ms: 6.0,
            },
            Measurement {
                bits: 64,
                series: "replicated".into(),
                median_ms: 5.5,
            },
        ];
        let directory =
            std::env::temp_dir().join(format!("smartarrays-plot-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let svg = directory.join("a.svg");
        grouped_bars(&svg, "test", &measurements).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("<svg") && text.contains("replicated") && text.contains("64 bits"));
        let png = directory.join("a.png");
        grouped_bars(&png, "test", &measurements).unwrap();
        assert_eq!(&std::fs::read(&png).unwrap()[..4], b"\x89PNG");
        assert!(grouped_bars(&directory.join("a.txt"), "test", &measurements).is_err());
        std::fs::remove_dir_all(&directory).unwrap();
    }
}
