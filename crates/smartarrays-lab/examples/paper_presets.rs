//! Prints the modelled evaluation of the paper's two machines: every configuration's estimated
//! time, Auto's choices, and which of the paper's findings the model reproduces.
//! Run: `cargo run -p smartarrays-lab --example paper_presets`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let evaluation = smartarrays_lab::evaluate::paper_findings(&[0.5, 0.75, 1.0, 1.25, 1.5, 2.0])?;
    print!("{evaluation}");
    Ok(())
}
