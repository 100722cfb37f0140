//! Pictures: the PNG of a table decodes, has the size its layout gives,
//! and shows the P-colour exactly where the P-positions are; the SVG marks
//! the same cells; `:plot` in the REPL and `grundy run --plot` write both
//! files; `grundy run --format csv|json` exports tables.

use std::path::Path;
use std::process::Command;
use std::rc::Rc;

use grundy::eval::value::{Table, Value};
use grundy::repl::{Repl, Style};
use grundy::report::plot::{plot_table, Chart, Layout, P_COLOUR};
use grundy::{Limits, Session};

const EMPTY_DIVIDE: &str = "
game EmptyDivide(a, b) where a >= 1 and b >= 1 {
    move split_b(k in 1..b) -> EmptyDivide(k, b - k)
    move split_a(k in 1..a) -> EmptyDivide(k, a - k)
}
print table(sg(EmptyDivide(a, b)) for a in 1..=9, b in 1..=9)
";

/// The 9x9 table of Empty-and-Divide (P-positions: both a and b odd).
fn table() -> Rc<Table> {
    let mut s = Session::new(Limits::default());
    let r = s.run("ed.game", EMPTY_DIVIDE, &mut std::io::sink());
    assert!(r.ok(), "{:?}", r.failures);
    s.last_table.clone().expect("the table printed")
}

struct Image {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Image {
    fn read(path: &Path) -> Image {
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(path).expect("the PNG exists"),
        ));
        let mut reader = decoder.read_info().expect("a PNG header");
        let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut buf).expect("PNG data");
        assert_eq!(info.color_type, png::ColorType::Rgb);
        buf.truncate(info.buffer_size());
        Image {
            width: info.width,
            height: info.height,
            rgb: buf,
        }
    }

    fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 3) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

#[test]
fn png_has_the_layout_size_and_p_colour_at_p_positions() {
    let t = table();
    let dir = tempfile::tempdir().unwrap();
    let written = plot_table(&t, "Empty-and-Divide", &dir.path().join("ed.png")).unwrap();
    let img = Image::read(&written.png);

    // 9 x 9 cells of 32 pixels. Across: margin 12, the row name and the
    // keys (one character of 8 pixels each, 16 and 6 apart), the grid,
    // margin 12: 12 + 8 + 16 + 8 + 6 + 288 + 12 = 350. Down: margin, title (16),
    // margin, column name (8 + 6), keys (8 + 6), grid, margin, legend (16),
    // margin: 12 + 16 + 12 + 14 + 14 + 288 + 12 + 16 + 12 = 396.
    let layout = Layout::new(&Chart::from_table(&t, "Empty-and-Divide").unwrap());
    assert_eq!(layout.cell, 32);
    assert_eq!((img.width, img.height), (layout.width, layout.height));
    assert_eq!((img.width, img.height), (350, 396));

    // The row axis name (`a`, down the left) stands two characters clear
    // of the row keys: no ink between them over the grid's height.
    let ink = |x: u32, y: u32| img.pixel(x, y) != [255, 255, 255];
    let grid_rows = layout.grid_y..layout.grid_y + 9 * layout.cell;
    let column_has_ink = |x: u32| grid_rows.clone().any(|y| ink(x, y));
    let name_end = (0..layout.grid_x).find(|&x| column_has_ink(x)).unwrap() + 8;
    let keys_start = (name_end..layout.grid_x)
        .find(|&x| column_has_ink(x))
        .unwrap();
    assert!(column_has_ink(name_end - 8), "the row name is drawn");
    assert!(
        keys_start - name_end >= 16,
        "the row name ends at x = {name_end}, the keys start at {keys_start}"
    );

    let mut p_cells = 0;
    for (i, row) in t.rows.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let (x, y, _, _) = layout.cell_rect(i, j);
            // Inside the cell, away from the digit drawn in its middle.
            let colour = img.pixel(x + 2, y + 2);
            let is_p = *v == Value::Int(0);
            assert_eq!(colour == P_COLOUR, is_p, "cell ({i}, {j}) = {v}");
            p_cells += usize::from(is_p);
        }
    }
    // The paper: a P-position exactly when a and b are both odd.
    assert_eq!(p_cells, 25);
    assert_eq!(
        img.pixel(layout.cell_rect(0, 0).0 + 2, layout.cell_rect(0, 0).1 + 2),
        P_COLOUR
    );
}

#[test]
fn svg_marks_the_same_p_cells_with_tooltips() {
    let t = table();
    let dir = tempfile::tempdir().unwrap();
    let written = plot_table(&t, "a < b & c", &dir.path().join("ed")).unwrap();
    assert_eq!(written.svg, dir.path().join("ed.svg"));
    let svg = std::fs::read_to_string(&written.svg).unwrap();
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"350\" height=\"396\"")
    );
    assert_eq!(svg.matches("<rect class=\"P\"").count(), 25);
    assert_eq!(svg.matches("<rect class=\"N\"").count(), 56);
    assert!(svg.contains("<title>a=1, b=1: 0 (P)</title>"));
    assert!(svg.contains("a &lt; b &amp; c"), "the title is escaped");
    assert!(svg.trim_end().ends_with("</svg>"));
}

#[test]
fn large_tables_get_small_cells_and_sparse_keys() {
    let rows: Vec<Vec<Value>> = (0..400)
        .map(|a| (0..300).map(|b| Value::Int((a ^ b) % 5)).collect())
        .collect();
    let t = Table {
        row_name: Rc::from("a"),
        col_name: Rc::from("b"),
        row_keys: (0..400).map(Value::Int).collect(),
        col_keys: (0..300).map(Value::Int).collect(),
        rows,
    };
    let dir = tempfile::tempdir().unwrap();
    let w = plot_table(&t, "", &dir.path().join("big.png")).unwrap();
    let img = Image::read(&w.png);
    let layout = Layout::new(&Chart::from_table(&t, "").unwrap());
    assert_eq!(layout.cell, 2);
    assert!(
        img.width >= 600 && img.height >= 800,
        "{}x{}",
        img.width,
        img.height
    );
    let (x, y, _, _) = layout.cell_rect(7, 7);
    assert_eq!(img.pixel(x, y), P_COLOUR, "(7 ^ 7) % 5 == 0");
}

#[test]
fn a_table_of_other_values_is_refused() {
    let t = Table {
        row_name: Rc::from("r"),
        col_name: Rc::from("c"),
        row_keys: vec![Value::Int(0)],
        col_keys: vec![Value::Int(0)],
        rows: vec![vec![Value::str("x")]],
    };
    let e = plot_table(&t, "", Path::new("/nonexistent/x.png")).unwrap_err();
    assert!(e.contains("a plot needs SG values"), "{e}");
}

#[test]
fn repl_plot_command_writes_png_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let mut repl = Repl::new(Limits::default(), Style::default());
    let mut run = |text: &str| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        repl.handle(text, &mut out, &mut err);
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    };
    run(EMPTY_DIVIDE
        .replace("print table", "let t = table")
        .as_str());
    let target = dir.path().join("ed.png");
    let (out, err) = run(&format!(":plot t {}", target.display()));
    assert_eq!(err, "");
    assert!(
        out.starts_with("wrote ") && out.ends_with("(9 x 9 cells)\n"),
        "{out}"
    );
    assert_eq!(Image::read(&target).width, 350);
    assert!(dir.path().join("ed.svg").exists());

    // Without an expression: the last table shown.
    run("table(sg(EmptyDivide(a, b)) for a in 1..=3, b in 1..=2)");
    let again = dir.path().join("small.svg");
    let (out, _) = run(&format!(":plot {}", again.display()));
    assert!(out.contains("(3 x 2 cells)"), "{out}");
    let svg = std::fs::read_to_string(&again).unwrap();
    assert!(svg.contains("table(sg(EmptyDivide(a, b)) for a in 1..=3, b in 1..=2)"));

    // A table printed by a loaded file is titled with the file's name.
    let file = dir.path().join("ed.game");
    std::fs::write(&file, EMPTY_DIVIDE).unwrap();
    run(&format!(":load {}", file.display()));
    let from_file = dir.path().join("file.svg");
    run(&format!(":plot {}", from_file.display()));
    let svg = std::fs::read_to_string(&from_file).unwrap();
    assert!(
        svg.contains(&format!(">{}</text>", file.display())),
        "{svg}"
    );

    let (_, err) = run(":plot 1 + 1");
    assert!(err.contains("needs a table"), "{err}");
    let (_, err) = run(":plot nothing_defined");
    assert!(err.contains("unknown name"), "{err}");
    let (_, err) = run(":plot print 1");
    assert!(err.contains("takes one expression"), "{err}");
}

#[test]
fn repl_plot_without_any_table_says_so() {
    let mut repl = Repl::new(Limits::default(), Style::default());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    repl.handle(":plot", &mut out, &mut err);
    assert!(String::from_utf8(err)
        .unwrap()
        .contains("no table shown yet"));
}

fn grundy(args: &[&str]) -> (String, String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.success(),
    )
}

#[test]
fn run_plot_writes_the_last_table_printed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ed.game");
    std::fs::write(&file, EMPTY_DIVIDE).unwrap();
    let pic = dir.path().join("pic");
    let (out, err, ok) = grundy(&[
        "run",
        file.to_str().unwrap(),
        "--plot",
        pic.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with("a\\b | 1 2 3"),
        "the grid still prints: {out}"
    );
    assert!(err.contains("pic.png and"), "{err}");
    let img = Image::read(&dir.path().join("pic.png"));
    let chart = Chart::from_table(&table(), &file.display().to_string()).unwrap();
    let layout = Layout::new(&chart);
    assert_eq!((img.width, img.height), (layout.width, layout.height));
    let (x, y, _, _) = layout.cell_rect(2, 2);
    assert_eq!(
        img.pixel(x + 1, y + 1),
        P_COLOUR,
        "EmptyDivide(3, 3) is a P-position"
    );

    let none = dir.path().join("none.game");
    std::fs::write(&none, "print 1").unwrap();
    let (_, err, ok) = grundy(&[
        "run",
        none.to_str().unwrap(),
        "--plot",
        pic.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("printed no table"), "{err}");
}

#[test]
fn run_exports_tables_as_csv_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.game");
    std::fs::write(
        &file,
        "print \"before\"\nprint table(a * b for a in 1..=2, b in 0..3)\ntable(outcome(0) for x in 0..1, y in 0..1)\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let (csv, _, ok) = grundy(&["run", path, "--format", "csv"]);
    assert!(ok);
    assert_eq!(
        csv,
        "before\na\\b,0,1,2\n1,0,1,2\n2,0,2,4\n\nx\\y,0\n0,P\n\n"
    );
    let (json, _, ok) = grundy(&["run", path, "--format", "json"]);
    assert!(ok);
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines[0], "before");
    let t: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(t["cells"], serde_json::json!([[0, 1, 2], [0, 2, 4]]));
    assert_eq!(t["row_keys"], serde_json::json!([1, 2]));
    let t: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
    assert_eq!(t["cells"], serde_json::json!([["P"]]));
    let (_, err, ok) = grundy(&["run", path, "--format", "xml"]);
    assert!(!ok);
    assert!(err.contains("unknown format `xml`"), "{err}");
}

/// The language form: `plot(T, FILE)` printed or shown by a rule file
/// writes the same pictures as `:plot`, with the P-colour at the paper's
/// P-positions (both a and b odd).
#[test]
fn run_writes_the_files_of_a_plot_value_when_it_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ed.game");
    let pic = dir.path().join("ed.png");
    let head = EMPTY_DIVIDE.replace(
        "print table(sg(EmptyDivide(a, b)) for a in 1..=9, b in 1..=9)\n",
        "",
    );
    let text = format!(
        "{head}\
         let p = plot(table(sg(EmptyDivide(a, b)) for a in 1..=9, b in 1..=9), \"{}\")\n\
         assert p.table == table(sg(EmptyDivide(a, b)) for a in 1..=9, b in 1..=9)\n\
         plot(sg(EmptyDivide(a, b)) for a in 1..=2, b in 1..=3)\n\
         p\n",
        pic.display()
    );
    assert!(!head.contains("print"), "{head}");
    std::fs::write(&file, text).unwrap();
    assert!(!pic.exists(), "a plot kept in a `let` writes nothing");
    let (out, err, ok) = grundy(&["run", file.to_str().unwrap()]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "heatmap of a\\b (2 x 3 cells, 2 P-positions)");
    assert_eq!(
        lines[1],
        format!(
            "heatmap of a\\b (9 x 9 cells, 25 P-positions), written to {} and {}",
            pic.display(),
            dir.path().join("ed.svg").display()
        )
    );
    let img = Image::read(&pic);
    // Titled with the table's expression in the `let`, not the file name.
    let title = "table(sg(EmptyDivide(a, b)) for a in 1..=9, b in 1..=9)";
    let layout = Layout::new(&Chart::from_table(&table(), title).unwrap());
    assert_eq!((img.width, img.height), (layout.width, layout.height));
    for (i, row) in table().rows.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let (x, y, _, _) = layout.cell_rect(i, j);
            assert_eq!(img.pixel(x + 2, y + 2) == P_COLOUR, *v == Value::Int(0));
        }
    }
    let svg = std::fs::read_to_string(dir.path().join("ed.svg")).unwrap();
    assert_eq!(svg.matches("<rect class=\"P\"").count(), 25);
    assert!(svg.contains(&format!(">{title}</text>")), "{svg}");

    // --format csv writes a plot's table; a file that cannot be written is
    // an error at the statement.
    let (csv, _, ok) = grundy(&["run", file.to_str().unwrap(), "--format", "csv"]);
    // The 2 x 3 plot's table is the corner of the 9 x 9 one.
    let corner: Vec<String> = table().rows[..2]
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{},{},{},{}\n", i + 1, r[0], r[1], r[2]))
        .collect();
    assert!(
        ok && csv.starts_with(&format!("a\\b,1,2,3\n{}\n", corner.concat())),
        "{csv}"
    );
    let bad = dir.path().join("bad.game");
    std::fs::write(
        &bad,
        "plot(table(a for a in 0..2, b in 0..2), \"/nonexistent/x.png\")\n",
    )
    .unwrap();
    let (_, err, ok) = grundy(&["run", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("cannot write /nonexistent/x.png"), "{err}");
    assert!(
        err.contains("this plot's files could not be written"),
        "{err}"
    );
}

#[test]
fn repl_plot_values_are_tables_for_the_plot_command() {
    let dir = tempfile::tempdir().unwrap();
    let mut repl = Repl::new(Limits::default(), Style::default());
    let mut run = |text: &str| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        repl.handle(text, &mut out, &mut err);
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    };
    run(EMPTY_DIVIDE
        .replace("print table", "let t = table")
        .as_str());
    let (out, err) = run("plot(t)");
    assert_eq!(err, "");
    assert_eq!(out, "heatmap of a\\b (9 x 9 cells, 25 P-positions)\n");
    // `:plot` without an expression draws the plot's table.
    let target = dir.path().join("again.png");
    let (out, _) = run(&format!(":plot {}", target.display()));
    assert!(out.contains("(9 x 9 cells)"), "{out}");
    let (_, err) = run("plot(t, 3)");
    assert!(
        err.contains("expected a file name (a string), found an integer `3`"),
        "{err}"
    );
    let (_, err) = run("plot(1, 2, 3)");
    assert!(
        err.contains("built-in `plot` takes 1 or 2 arguments"),
        "{err}"
    );
    // A name `plot` of one's own hides the built-in, as before it existed.
    let (out, err) = run("fn plot(x) = x + 1\nprint plot(1)");
    assert_eq!((out.as_str(), err.as_str()), ("2\n", ""));
}
