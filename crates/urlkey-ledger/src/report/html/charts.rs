//! The page's inline SVG charts, drawn with `plotters`' SVG backend: publisher shares as
//! bars, the concentration curve, and with `--compare` the change per publisher.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::{LedgerError, Result};
use crate::report::{Comparison, Measures};

const BAR: RGBColor = RGBColor(74, 111, 165);
const UP: RGBColor = RGBColor(46, 125, 50);
const DOWN: RGBColor = RGBColor(183, 28, 28);

fn chart_err<E: std::fmt::Debug>(e: E) -> LedgerError {
    LedgerError::output(format!("cannot draw a chart: {e:?}"))
}

fn label_width(names: &[&str]) -> u32 {
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(8);
    (longest.clamp(8, 48) as u32) * 7 + 16
}

/// Draws `f` on an SVG canvas of `size`, returning the `<svg>` element.
fn svg(
    size: (u32, u32),
    f: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<()>,
) -> Result<String> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE).map_err(chart_err)?;
        f(&root)?;
        root.present().map_err(chart_err)?;
    }
    Ok(buf)
}

/// Horizontal bars: one per listed publisher, its share of the valid observations.
pub(super) fn publisher_bars(m: &Measures) -> Result<String> {
    let names: Vec<&str> = m.top_publishers.iter().map(|t| t.name()).collect();
    let n = names.len();
    let left = label_width(&names);
    let height = 60 + 28 * n as u32;
    let xmax = m
        .top_publishers
        .iter()
        .map(|t| t.share)
        .fold(0.0f64, f64::max)
        .max(0.05)
        * 1.3;
    svg((760, height), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .x_label_area_size(28)
            .y_label_area_size(left)
            .build_cartesian_2d(0f64..xmax.min(1.3), 0f64..n as f64)
            .map_err(chart_err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(WHITE)
            .y_labels(0)
            .x_labels(6)
            .x_label_formatter(&|x| format!("{x:.2}"))
            .x_desc(format!(
                "share of {} valid observations",
                m.valid_observations
            ))
            .draw()
            .map_err(chart_err)?;
        chart
            .draw_series(m.top_publishers.iter().enumerate().map(|(i, t)| {
                let y = (n - 1 - i) as f64;
                Rectangle::new([(0.0, y + 0.18), (t.share, y + 0.82)], BAR.filled())
            }))
            .map_err(chart_err)?;
        chart
            .draw_series(m.top_publishers.iter().enumerate().map(|(i, t)| {
                let y = (n - 1 - i) as f64 + 0.5;
                Text::new(
                    format!(
                        " {:.4} ({}/{})",
                        t.share, t.observations, m.valid_observations
                    ),
                    (t.share, y),
                    ("sans-serif", 13)
                        .into_font()
                        .into_text_style(root)
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                )
            }))
            .map_err(chart_err)?;
        let style = ("sans-serif", 13)
            .into_font()
            .into_text_style(root)
            .pos(Pos::new(HPos::Right, VPos::Center));
        for (i, name) in names.iter().enumerate() {
            let y = (n - 1 - i) as f64 + 0.5;
            let (_, py) = chart.backend_coord(&(0.0, y));
            let (px, _) = chart.backend_coord(&(0.0, 0.0));
            root.draw(&Text::new(name.to_string(), (px - 6, py), style.clone()))
                .map_err(chart_err)?;
        }
        Ok(())
    })
}

/// The cumulative share of the valid observations held by the top k publishers, k = 0..n,
/// over every publisher of the sample (not only the listed ones), with the line of n equal
/// publishers for reference.
pub(super) fn concentration_curve(m: &Measures) -> Result<String> {
    let total = m.valid_observations.max(1) as f64;
    let n = m.publisher_counts.len().max(1);
    let mut pts = vec![(0f64, 0f64)];
    let mut acc = 0f64;
    for (k, c) in m.publisher_counts.iter().enumerate() {
        acc += *c as f64;
        pts.push(((k + 1) as f64, acc / total));
    }
    svg((760, 320), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(14)
            .x_label_area_size(34)
            .y_label_area_size(48)
            .build_cartesian_2d(0f64..n as f64, 0f64..1f64)
            .map_err(chart_err)?;
        chart
            .configure_mesh()
            .light_line_style(RGBColor(238, 238, 238))
            .x_labels(n.min(10))
            .y_labels(6)
            .x_label_formatter(&|x| format!("{}", x.round() as i64))
            .y_label_formatter(&|y| format!("{y:.1}"))
            .x_desc(format!("top k of {n} publishers"))
            .y_desc("cumulative share")
            .draw()
            .map_err(chart_err)?;
        chart
            .draw_series(DashedLineSeries::new(
                vec![(0.0, 0.0), (n as f64, 1.0)],
                6,
                4,
                RGBColor(150, 150, 150).stroke_width(1),
            ))
            .map_err(chart_err)?;
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), BAR.stroke_width(2)))
            .map_err(chart_err)?;
        chart
            .draw_series(pts[1..].iter().map(|&p| Circle::new(p, 3, BAR.filled())))
            .map_err(chart_err)?;
        Ok(())
    })
}

/// Diverging bars: per publisher, the change in valid observations from A to B.
pub(super) fn change_bars(c: &Comparison) -> Result<String> {
    let rows = &c.publishers;
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    let n = rows.len();
    let left = label_width(&names);
    let m = rows
        .iter()
        .map(|r| r.change.unsigned_abs())
        .max()
        .unwrap_or(1)
        .max(1) as f64
        * 1.35;
    svg((760, 60 + 28 * n as u32), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .x_label_area_size(28)
            .y_label_area_size(left)
            .build_cartesian_2d(-m..m, 0f64..n as f64)
            .map_err(chart_err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(WHITE)
            .y_labels(0)
            .x_labels(7)
            .x_label_formatter(&|x| format!("{:+}", x.round() as i64))
            .x_desc("change in valid observations (B - A)")
            .draw()
            .map_err(chart_err)?;
        chart
            .draw_series(rows.iter().enumerate().map(|(i, r)| {
                let y = (n - 1 - i) as f64;
                let colour = if r.change >= 0 { UP } else { DOWN };
                Rectangle::new(
                    [(0.0, y + 0.18), (r.change as f64, y + 0.82)],
                    colour.filled(),
                )
            }))
            .map_err(chart_err)?;
        chart
            .draw_series(rows.iter().enumerate().map(|(i, r)| {
                let y = (n - 1 - i) as f64 + 0.5;
                // On the other side of the zero line from the bar: never over the names.
                let h = if r.change >= 0 {
                    HPos::Right
                } else {
                    HPos::Left
                };
                Text::new(
                    format!(" {:+} ({} to {}, {}) ", r.change, r.a, r.b, r.status),
                    (0.0, y),
                    ("sans-serif", 12)
                        .into_font()
                        .into_text_style(root)
                        .pos(Pos::new(h, VPos::Center)),
                )
            }))
            .map_err(chart_err)?;
        let style = ("sans-serif", 13)
            .into_font()
            .into_text_style(root)
            .pos(Pos::new(HPos::Right, VPos::Center));
        let (px, _) = chart.backend_coord(&(-m, 0.0));
        for (i, name) in names.iter().enumerate() {
            let y = (n - 1 - i) as f64 + 0.5;
            let (_, py) = chart.backend_coord(&(0.0, y));
            root.draw(&Text::new(name.to_string(), (px - 6, py), style.clone()))
                .map_err(chart_err)?;
        }
        Ok(())
    })
}
