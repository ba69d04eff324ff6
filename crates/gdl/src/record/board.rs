//! Drawing a game state as a grid, found from the state's facts alone.
//!
//! A state is a list of facts in KIF such as `(cell a 2 wp)`. When one
//! relation of arity three or more has two small sets of atoms as its first
//! two arguments (files and ranks), its facts are drawn as a grid: ranks
//! descend from top to bottom, coordinates are written on every edge, `.`
//! marks an empty cell. The other facts (`(control white)`, `(step 3)`) are
//! listed below the grid.
//!
//! A [`Board`] learns from every state it is shown (see [`Board::observe`]):
//! cells that no state has ever mentioned, while the states do list their
//! empty cells, are holes and are drawn `#`. When every cell in use has the
//! same colour on a checkerboard, the other colour is drawn blank.
//!
//! A rules file can say how to draw itself with annotation comments, lines
//! that begin with `;!` (ordinary comments to every other GDL reader):
//!
//! ```text
//! ;! board cell x=1 y=2 piece=3   ; the relation drawn, argument positions from 1
//! ;! board cell square=1 piece=2  ; cells named by a square number (needs `numbers`)
//! ;! board none                   ; never draw a grid, list the facts
//! ;! files a b c d e f g h        ; the columns, left to right
//! ;! ranks 1 2 3 4 5 6 7 8        ; the rows, bottom to top
//! ;! empty b                      ; contents that mean an empty cell
//! ;! holes 3:3 3:6 6:3 6:6        ; cells drawn as holes, as file:rank
//! ;! piece wk K                   ; show the content `wk` as `K`
//! ;! numbers from-top             ; number the cells in use row by row from the top
//! ;! numbers from-top a:1         ; number the cells of a1's colour (needs files, ranks)
//! ;! numbers b:8 d:8 f:8 h:8 ...  ; or list the cells in number order (lines add up)
//! ```
//!
//! A board whose cells are square numbers, such as `(cell 12 wm)`, needs
//! `board REL square=N piece=M` and a numbering given as a list or with a
//! colour (`numbers from-top a:1` after `files` and `ranks`).
//!
//! With `numbers`, a key grid of the square numbers is drawn to the right of
//! the board (the numbering of draughts players).

use crate::syntax::kif::Kif;
use crate::syntax::natural::natural_cmp;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Sorts texts in [`natural_cmp`] order.
fn natural_sort(texts: &mut [String]) {
    texts.sort_by(|a, b| natural_cmp(a, b));
}

/// How a numbering of the squares is given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Numbers {
    /// No square numbers.
    #[default]
    None,
    /// The cells in use, numbered row by row from the top rank, left to right.
    FromTop,
    /// The cells in use, numbered row by row from the bottom rank.
    FromBottom,
    /// The cells listed, as (file, rank), numbered from 1 in this order.
    List(Vec<(String, String)>),
}

/// How to draw a rules file's states, read from its `;!` annotations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardSpec {
    /// Never draw a grid: list the facts (`;! board none`).
    pub disabled: bool,
    /// Draw a grid whenever a relation of three or more arguments can be
    /// one, however few its facts or many its coordinates (when `disabled`
    /// is false).
    pub forced: bool,
    /// The relation drawn; found from the facts when `None`.
    relation: Option<String>,
    /// Argument index (from 0) of the file.
    x: usize,
    /// Argument index (from 0) of the rank.
    y: usize,
    /// Argument index (from 0) of the content.
    piece: usize,
    /// Argument index (from 0) of a square number standing for the cell.
    square: Option<usize>,
    /// The files, left to right, if given.
    files: Option<Vec<String>>,
    /// The ranks, bottom to top, if given.
    ranks: Option<Vec<String>>,
    /// Contents that mean an empty cell, if given.
    empty: Option<Vec<String>>,
    /// Cells drawn as holes.
    holes: Vec<(String, String)>,
    /// How to show contents, each content in lower case.
    pieces: BTreeMap<String, String>,
    /// The square numbering.
    numbers: Numbers,
}

impl Default for BoardSpec {
    fn default() -> Self {
        BoardSpec {
            disabled: false,
            forced: false,
            relation: None,
            x: 0,
            y: 1,
            piece: 2,
            square: None,
            files: None,
            ranks: None,
            empty: None,
            holes: Vec::new(),
            pieces: BTreeMap::new(),
            numbers: Numbers::None,
        }
    }
}

fn cell_pair(word: &str) -> Option<(String, String)> {
    let (x, y) = word.split_once(':')?;
    (!x.is_empty() && !y.is_empty()).then(|| (x.to_lowercase(), y.to_lowercase()))
}

impl BoardSpec {
    /// Reads the `;!` annotations of a rules file's text. Returns the spec
    /// and one message per annotation line that could not be understood
    /// (`line N: ...`); such lines are ignored.
    pub fn from_source(text: &str) -> (BoardSpec, Vec<String>) {
        let mut spec = BoardSpec::default();
        let mut problems = Vec::new();
        for (n, line) in text.lines().enumerate() {
            // `%!` in infix files.
            let line_start = line.trim_start();
            let Some(rest) = (line_start.strip_prefix(";!")).or(line_start.strip_prefix("%!"))
            else {
                continue;
            };
            // An annotation may end with an ordinary comment.
            let rest = rest.split([';', '%']).next().unwrap_or("");
            if let Err(e) = spec.apply(rest) {
                problems.push(format!("line {}: {e}: `{}`", n + 1, line.trim()));
            }
        }
        (spec, problems)
    }

    fn apply(&mut self, annotation: &str) -> Result<(), String> {
        let words: Vec<&str> = annotation.split_whitespace().collect();
        let Some((&keyword, args)) = words.split_first() else {
            return Ok(());
        };
        let lower = |v: &[&str]| v.iter().map(|w| w.to_lowercase()).collect::<Vec<_>>();
        let pairs = |v: &[&str]| {
            v.iter()
                .map(|w| cell_pair(w).ok_or(format!("`{w}` is not a cell written file:rank")))
                .collect::<Result<Vec<_>, _>>()
        };
        match keyword.to_lowercase().as_str() {
            "board" => match args {
                [] => return Err("`board` needs a relation or `none`".into()),
                [none] if none.eq_ignore_ascii_case("none") => self.disabled = true,
                [relation, options @ ..] => {
                    self.relation = Some(relation.to_lowercase());
                    for option in options {
                        let (key, value) = option
                            .split_once('=')
                            .ok_or(format!("`{option}` is not key=position"))?;
                        let position: usize = value
                            .parse()
                            .ok()
                            .filter(|&p| p >= 1)
                            .ok_or(format!("`{value}` is not an argument position from 1"))?;
                        match key {
                            "x" => self.x = position - 1,
                            "y" => self.y = position - 1,
                            "piece" => self.piece = position - 1,
                            "square" => self.square = Some(position - 1),
                            _ => return Err(format!("unknown option `{key}`")),
                        }
                    }
                }
            },
            "files" => self.files = Some(lower(args)),
            "ranks" => self.ranks = Some(lower(args)),
            "empty" => self.empty = Some(lower(args)),
            "holes" => self.holes.extend(pairs(args)?),
            "piece" => match args {
                [content @ .., shown] if !content.is_empty() => {
                    let content = Kif::read_all(&content.join(" "))
                        .map_err(|e| format!("`piece`: {}", e[0].message))?;
                    let content: Vec<String> = content.iter().map(Kif::to_string).collect();
                    let content = content.join(" ").to_ascii_lowercase();
                    self.pieces.insert(content, shown.to_string());
                }
                _ => return Err("`piece` needs a content and how to show it".into()),
            },
            "numbers" => match args {
                [w] if w.eq_ignore_ascii_case("from-top") => self.numbers = Numbers::FromTop,
                [w] if w.eq_ignore_ascii_case("from-bottom") => self.numbers = Numbers::FromBottom,
                [w, like]
                    if w.eq_ignore_ascii_case("from-top")
                        || w.eq_ignore_ascii_case("from-bottom") =>
                {
                    let (x, y) = cell_pair(like)
                        .ok_or(format!("`{like}` is not a cell written file:rank"))?;
                    let files = self
                        .files
                        .as_ref()
                        .ok_or("`numbers ... CELL` needs `files` before it")?;
                    let ranks = self
                        .ranks
                        .as_ref()
                        .ok_or("`numbers ... CELL` needs `ranks` before it")?;
                    let xi = files
                        .iter()
                        .position(|f| *f == x)
                        .ok_or(format!("`{x}` is not one of the files"))?;
                    let yi = ranks
                        .iter()
                        .position(|r| *r == y)
                        .ok_or(format!("`{y}` is not one of the ranks"))?;
                    let mut rows: Vec<(usize, &String)> = ranks.iter().enumerate().collect();
                    if w.eq_ignore_ascii_case("from-top") {
                        rows.reverse();
                    }
                    let mut list = Vec::new();
                    for (ri, rank) in rows {
                        for (fi, file) in files.iter().enumerate() {
                            if (fi + ri) % 2 == (xi + yi) % 2 {
                                list.push((file.clone(), rank.clone()));
                            }
                        }
                    }
                    self.numbers = Numbers::List(list);
                }
                _ => {
                    let mut list = match std::mem::take(&mut self.numbers) {
                        Numbers::List(list) => list,
                        _ => Vec::new(),
                    };
                    list.extend(pairs(args)?);
                    self.numbers = Numbers::List(list);
                }
            },
            other => return Err(format!("unknown annotation `{other}`")),
        }
        Ok(())
    }
}

/// Contents that mean an empty cell when the rules file does not say.
const EMPTY_WORDS: [&str; 6] = ["b", "blank", "empty", "none", "nil", "-"];

/// A cell of the grid, already split from the fact: its coordinates in
/// lower case (as they are matched) and as written, and its content as
/// written.
struct CellFact {
    x: String,
    y: String,
    written: (String, String),
    content: String,
}

/// A state drawn as a grid ([`Board::grid`]): its squares row by row from
/// the top rank, left to right, with the coordinates and the facts that
/// are not cells.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Grid {
    /// The files, left to right, in lower case (as cells are keyed).
    pub files: Vec<String>,
    /// The ranks, top to bottom, in lower case.
    pub ranks: Vec<String>,
    /// The files as the rules file writes them.
    pub file_labels: Vec<String>,
    /// The ranks as the rules file writes them.
    pub rank_labels: Vec<String>,
    /// The squares, a row a rank (top first), a square a file.
    pub rows: Vec<Vec<Square>>,
    /// The square numbers (`;! numbers`), laid out as `rows`.
    pub numbers: Vec<Vec<Option<usize>>>,
    /// How each content met so far is shown: (shown, content), by content.
    pub legend: Vec<(String, String)>,
    /// The facts of the state that are not cells, in natural order.
    pub others: Vec<String>,
}

/// One square of a [`Grid`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Square {
    /// A piece: its content as the fact writes it, and as it is shown
    /// (abbreviated, or as a `;! piece` annotation says).
    Piece {
        /// The content.
        content: String,
        /// How it is shown.
        shown: String,
    },
    /// An empty square (drawn `.`).
    Empty,
    /// A hole: no square there (drawn `#`).
    Hole,
    /// A square of the colour no piece uses, or without a number (drawn
    /// blank).
    Unused,
}

/// What a grid is made of ([`Board::parts`]): the cells of the state by
/// (file, rank), the other facts, the files and ranks (top first), how
/// each content is shown.
struct Parts {
    cells: BTreeMap<(String, String), String>,
    others: Vec<String>,
    files: Vec<String>,
    ranks: Vec<String>,
    shown: BTreeMap<String, String>,
}

impl Parts {
    /// The width of a cell and of a rank's label as text, and whether the
    /// drawing would take more than [`MAX_GRID_BYTES`].
    fn text_size(&self) -> (usize, usize, bool) {
        let width = (self.shown.values())
            .chain(self.files.iter())
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(1);
        let rank_width = (self.ranks.iter())
            .map(|r| r.chars().count())
            .max()
            .unwrap_or(1);
        // Rows of cells (and of their numbers) between two header rows.
        let bytes = (self.ranks.len().saturating_add(2))
            .saturating_mul(self.files.len().saturating_mul(width.saturating_add(1)))
            .saturating_add(self.ranks.len().saturating_mul(2 * rank_width + 4));
        (width, rank_width, bytes > MAX_GRID_BYTES)
    }
}

/// Draws states of one game. Create it with the rules file's [`BoardSpec`],
/// show it each state met with [`Board::observe`], draw with [`Board::draw`].
#[derive(Clone, Debug, Default)]
pub struct Board {
    spec: BoardSpec,
    /// The relation chosen and its arity (arguments), once known.
    relation: Option<(String, usize)>,
    /// Every cell mentioned by a state so far.
    seen: BTreeSet<(String, String)>,
    /// Whether some state listed an empty cell explicitly.
    lists_empty: bool,
    /// Every content met so far.
    contents: BTreeSet<String>,
    /// The holes of the spec, to look up.
    holes: BTreeSet<(String, String)>,
    /// The cells of the spec's numbering given as a list, to look up.
    numbered: BTreeSet<(String, String)>,
    /// Each coordinate met (in lower case, as cells are keyed) as the
    /// rules file writes it, for the labels.
    labels: BTreeMap<String, String>,
}

/// The most bytes a grid may take (the board of a state, drawn at every
/// step): a larger board, thousands of files and ranks or cells of long
/// contents, is not drawn; a note says so and its facts are listed. The
/// largest board of `rules/` takes 4 KB.
const MAX_GRID_BYTES: usize = 64 << 10;

impl Board {
    /// A board drawn as `spec` says.
    pub fn new(spec: BoardSpec) -> Board {
        let holes = spec.holes.iter().cloned().collect();
        let numbered = match &spec.numbers {
            Numbers::List(list) => list.iter().cloned().collect(),
            _ => BTreeSet::new(),
        };
        Board {
            spec,
            holes,
            numbered,
            ..Board::default()
        }
    }

    /// Learns the cells and contents of a state (its facts in KIF). Call it
    /// for every state before drawing it.
    pub fn observe(&mut self, facts: &[String]) {
        if self.spec.disabled {
            return;
        }
        let parsed: Vec<Kif> = facts
            .iter()
            .filter_map(|f| Kif::read_all(f).ok()?.into_iter().next())
            .collect();
        if self.relation.is_none() {
            self.relation = self.choose_relation(&parsed);
        }
        for t in &parsed {
            if let Some(cell) = self.cell_of(t) {
                if self.is_empty(&cell.content) {
                    self.lists_empty = true;
                } else {
                    self.contents.insert(cell.content.clone());
                }
                let (x, y) = cell.written;
                self.labels.entry(cell.x.clone()).or_insert(x);
                self.labels.entry(cell.y.clone()).or_insert(y);
                self.seen.insert((cell.x, cell.y));
            }
        }
    }

    fn choose_relation(&self, facts: &[Kif]) -> Option<(String, usize)> {
        let mut groups: BTreeMap<(String, usize), Vec<&[Kif]>> = BTreeMap::new();
        for t in facts {
            if let Kif::List(items) = t
                && let Some((Kif::Atom(name), args)) = items.split_first()
            {
                groups
                    .entry((name.to_ascii_lowercase(), args.len()))
                    .or_default()
                    .push(args);
            }
        }
        if let Some(name) = &self.spec.relation {
            return groups.keys().find(|(n, _)| n == name).cloned();
        }
        let (x, y) = (self.spec.x, self.spec.y);
        let forced = self.spec.forced;
        groups
            .into_iter()
            .filter(|((_, arity), rows)| {
                let coords = |i: usize| {
                    rows.iter()
                        .map(|r| r[i].atom())
                        .collect::<Option<BTreeSet<_>>>()
                        .map_or(0, |s| s.len())
                };
                if *arity < 3 {
                    return false;
                }
                let (nx, ny) = (coords(x), coords(y));
                // Forced, any relation whose two first arguments are atoms
                // is a grid (MAX_GRID_BYTES still bounds its drawing).
                if forced {
                    nx > 0 && ny > 0
                } else {
                    rows.len() >= 4
                        && (1..=26).contains(&nx)
                        && (1..=26).contains(&ny)
                        && nx * ny > 1
                }
            })
            .max_by_key(|(_, rows)| rows.len())
            .map(|(key, _)| key)
    }

    fn cell_of(&self, fact: &Kif) -> Option<CellFact> {
        let (name, arity) = self.relation.as_ref()?;
        let Kif::List(items) = fact else { return None };
        let (head, args) = items.split_first()?;
        if !head.atom().is_some_and(|h| h.eq_ignore_ascii_case(name)) || args.len() != *arity {
            return None;
        }
        let (written, (x, y), used) = match self.spec.square {
            Some(s) => {
                let n: usize = args.get(s)?.atom()?.parse().ok()?;
                let Numbers::List(list) = &self.spec.numbers else {
                    return None;
                };
                let (x, y) = list.get(n.checked_sub(1)?)?.clone();
                ((x.clone(), y.clone()), (x, y), vec![s])
            }
            None => {
                let x = args.get(self.spec.x)?.atom()?;
                let y = args.get(self.spec.y)?.atom()?;
                (
                    (x.to_string(), y.to_string()),
                    (x.to_ascii_lowercase(), y.to_ascii_lowercase()),
                    vec![self.spec.x, self.spec.y],
                )
            }
        };
        let content = if args.len() == used.len() + 1 || self.spec.relation.is_some() {
            args.get(self.spec.piece)
                .filter(|_| !used.contains(&self.spec.piece))
                .map(Kif::to_string)
        } else {
            None
        };
        let content = content.unwrap_or_else(|| {
            let rest: Vec<String> = (0..args.len())
                .filter(|i| !used.contains(i))
                .map(|i| args[i].to_string())
                .collect();
            rest.join(" ")
        });
        Some(CellFact {
            x,
            y,
            written,
            content,
        })
    }

    fn is_empty(&self, content: &str) -> bool {
        match &self.spec.empty {
            Some(words) => words.iter().any(|w| w.eq_ignore_ascii_case(content)),
            None => EMPTY_WORDS.iter().any(|w| w.eq_ignore_ascii_case(content)),
        }
    }

    /// A coordinate (in lower case) as the rules file writes it.
    fn label<'a>(&'a self, coordinate: &'a str) -> &'a str {
        self.labels
            .get(coordinate)
            .map_or(coordinate, String::as_str)
    }

    /// The files, left to right: as annotated, else the coordinates seen,
    /// sorted, with the gaps of a run of numbers or letters filled.
    fn axis(
        &self,
        given: &Option<Vec<String>>,
        pick: fn(&(String, String)) -> &String,
    ) -> Vec<String> {
        if let Some(given) = given {
            return given.clone();
        }
        let mut seen: Vec<String> = self.seen.iter().map(|c| pick(c).clone()).collect();
        seen.extend(self.spec.holes.iter().map(|c| pick(c).clone()));
        if let Numbers::List(list) = &self.spec.numbers {
            seen.extend(list.iter().map(|c| pick(c).clone()));
        }
        natural_sort(&mut seen);
        seen.dedup();
        fill_gaps(seen)
    }

    /// Draws a state (its facts in KIF): the grid when the state has cells,
    /// then the other facts; the facts one per line otherwise.
    pub fn draw(&self, facts: &[String]) -> String {
        let Some(parts) = self.parts(facts) else {
            let mut facts = facts.to_vec();
            natural_sort(&mut facts);
            return facts.iter().map(|f| format!("{f}\n")).collect();
        };
        let (width, rank_width, too_large) = parts.text_size();
        if too_large {
            let mut facts = facts.to_vec();
            natural_sort(&mut facts);
            let mut out = format!(
                "(a board of {} files and {} ranks, cells {width} characters wide, is too \
                 large to draw; its facts follow)\n",
                parts.files.len(),
                parts.ranks.len()
            );
            out.extend(facts.iter().map(|f| format!("{f}\n")));
            return out;
        }
        let grid = self.build(parts);
        let number_width = (grid.numbers.iter().flatten().flatten())
            .max()
            .map_or(0, |n| n.to_string().len());
        let numbered = grid.numbers.iter().flatten().any(Option::is_some);

        let mut out = String::new();
        let header = |out: &mut String| {
            let _ = write!(out, "{:rank_width$} ", "");
            let labels: Vec<String> = (grid.file_labels.iter())
                .map(|f| format!("{f:<width$}"))
                .collect();
            let _ = writeln!(out, " {}", labels.join(" ").trim_end());
        };
        header(&mut out);
        for (yi, row) in grid.rows.iter().enumerate() {
            let line = out.len();
            let label = &grid.rank_labels[yi];
            let _ = write!(out, "{label:>rank_width$} ");
            for square in row {
                let text = match square {
                    Square::Piece { shown, .. } => shown.as_str(),
                    Square::Empty => ".",
                    Square::Hole => "#",
                    Square::Unused => " ",
                };
                let _ = write!(out, " {text:<width$}");
            }
            let _ = write!(out, "  {label}");
            if numbered {
                out.push_str("    ");
                for number in &grid.numbers[yi] {
                    match number {
                        Some(n) => {
                            let _ = write!(out, " {n:>number_width$}");
                        }
                        None => {
                            let _ = write!(out, " {:number_width$}", "");
                        }
                    }
                }
            }
            // The end of this line, not the whole drawing (quadratic).
            let end = line + out[line..].trim_end().len();
            out.truncate(end);
            out.push('\n');
        }
        header(&mut out);
        let legend: Vec<String> = (grid.legend.iter())
            .filter(|(shown, content)| content != shown)
            .map(|(shown, content)| format!("{shown} = {content}"))
            .collect();
        if !legend.is_empty() {
            out.push_str(&wrap(&legend, ", "));
        }
        if !grid.others.is_empty() {
            out.push_str(&wrap(&grid.others, " "));
        }
        out
    }

    /// A state (its facts in KIF) as a grid, square by square, for a
    /// drawing of one's own (`gdl studio` draws it in a page); `None` when
    /// the state is not drawn as a grid ([`Board::draw`] lists its facts).
    pub fn grid(&self, facts: &[String]) -> Option<Grid> {
        let parts = self.parts(facts)?;
        if parts.text_size().2 {
            return None;
        }
        Some(self.build(parts))
    }

    /// What a grid is made of, before its squares are laid out (which a
    /// board too large to draw never is): `None` when the state is not
    /// drawn as a grid.
    fn parts(&self, facts: &[String]) -> Option<Parts> {
        if self.relation.is_none() || self.spec.disabled {
            return None;
        }
        let mut facts = facts.to_vec();
        natural_sort(&mut facts);
        let mut cells: BTreeMap<(String, String), String> = BTreeMap::new();
        let mut others = Vec::new();
        for f in &facts {
            let cell = Kif::read_all(f)
                .ok()
                .and_then(|t| t.into_iter().next())
                .and_then(|t| self.cell_of(&t));
            match cell {
                Some(c) => {
                    cells.insert((c.x, c.y), c.content);
                }
                None => others.push(f.clone()),
            }
        }
        let files = self.axis(&self.spec.files, |c| &c.0);
        let mut ranks = self.axis(&self.spec.ranks, |c| &c.1);
        ranks.reverse();
        Some(Parts {
            cells,
            others,
            files,
            ranks,
            shown: self.abbreviations(),
        })
    }

    /// The squares of a grid laid out.
    fn build(&self, parts: Parts) -> Grid {
        let Parts {
            cells,
            others,
            files,
            ranks,
            shown,
        } = parts;
        let used_parity = self.used_parity(&files, &ranks);
        let numbers = self.numbering(&files, &ranks, used_parity);
        let mut rows = Vec::with_capacity(ranks.len());
        let mut numbers_of_rows = Vec::with_capacity(ranks.len());
        for (yi, rank) in ranks.iter().enumerate() {
            let mut row = Vec::with_capacity(files.len());
            let mut row_numbers = Vec::with_capacity(files.len());
            for (xi, file) in files.iter().enumerate() {
                let key = (file.clone(), rank.clone());
                row.push(match cells.get(&key) {
                    Some(c) if !self.is_empty(c) => Square::Piece {
                        content: c.clone(),
                        shown: shown.get(c).cloned().unwrap_or(c.clone()),
                    },
                    Some(_) => Square::Empty,
                    None => self.absent(&key, xi, ranks.len() - 1 - yi, used_parity),
                });
                row_numbers.push(numbers.get(&key).copied());
            }
            rows.push(row);
            numbers_of_rows.push(row_numbers);
        }
        Grid {
            file_labels: files.iter().map(|f| self.label(f).to_string()).collect(),
            rank_labels: ranks.iter().map(|r| self.label(r).to_string()).collect(),
            files,
            ranks,
            rows,
            numbers: numbers_of_rows,
            legend: shown.into_iter().map(|(content, s)| (s, content)).collect(),
            others,
        }
    }

    /// The cells a move names, in the order it names them, as `(file,
    /// rank)` of [`Grid::files`] and [`Grid::ranks`]: pairs of its
    /// arguments that are a file and a rank, in the order the board's
    /// relation gives its coordinates (`(move a 2 a 3)` names a2 then a3),
    /// or square numbers on a board of numbered squares. Empty when it
    /// names none, or when the board is not drawn as a grid.
    pub fn move_cells(&self, grid: &Grid, text: &str) -> Vec<(String, String)> {
        let Some(Kif::List(items)) = Kif::read_all(text).ok().and_then(|t| t.into_iter().next())
        else {
            return Vec::new();
        };
        let args: Vec<String> = (items.iter().skip(1))
            .filter_map(|a| a.atom().map(str::to_ascii_lowercase))
            .collect();
        let mut cells = Vec::new();
        if let (Some(_), Numbers::List(list)) = (self.spec.square, &self.spec.numbers) {
            for a in &args {
                if let Some(cell) = (a.parse::<usize>().ok())
                    .and_then(|n| n.checked_sub(1))
                    .and_then(|i| list.get(i))
                {
                    cells.push(cell.clone());
                }
            }
            return cells;
        }
        let file_first = self.spec.x <= self.spec.y;
        let mut i = 0;
        while i + 1 < args.len() {
            let (file, rank) = if file_first {
                (&args[i], &args[i + 1])
            } else {
                (&args[i + 1], &args[i])
            };
            if grid.files.contains(file) && grid.ranks.contains(rank) {
                cells.push((file.clone(), rank.clone()));
                i += 2;
            } else {
                i += 1;
            }
        }
        cells
    }

    /// What to draw for a cell the state does not mention.
    fn absent(
        &self,
        key: &(String, String),
        xi: usize,
        yi: usize,
        parity: Option<usize>,
    ) -> Square {
        if self.holes.contains(key) {
            return Square::Hole;
        }
        // Cells named by square numbers: a cell without a number is unused.
        if let (Some(_), Numbers::List(_)) = (self.spec.square, &self.spec.numbers) {
            return if self.numbered.contains(key) {
                Square::Empty
            } else {
                Square::Unused
            };
        }
        if parity.is_some_and(|p| (xi + yi) % 2 != p) {
            return Square::Unused;
        }
        if self.lists_empty && !self.seen.contains(key) {
            return Square::Hole;
        }
        Square::Empty
    }

    /// The colour (parity of file index plus rank index, from the bottom
    /// left) shared by every cell in use, if they all share one and there
    /// are enough of them to tell.
    fn used_parity(&self, files: &[String], ranks_top_down: &[String]) -> Option<usize> {
        let file_index: BTreeMap<&String, usize> = files.iter().zip(0..).collect();
        let rank_index: BTreeMap<&String, usize> = ranks_top_down.iter().rev().zip(0..).collect();
        let mut parities = BTreeSet::new();
        let mut count = 0;
        for (x, y) in &self.seen {
            let xi = *file_index.get(x)?;
            let yi = *rank_index.get(y)?;
            parities.insert((xi + yi) % 2);
            count += 1;
        }
        (parities.len() == 1 && count >= 4)
            .then(|| parities.into_iter().next())
            .flatten()
    }

    fn numbering(
        &self,
        files: &[String],
        ranks_top_down: &[String],
        parity: Option<usize>,
    ) -> BTreeMap<(String, String), usize> {
        let in_use = |xi: usize, yi_from_bottom: usize, key: &(String, String)| {
            !self.holes.contains(key)
                && parity.is_none_or(|p| (xi + yi_from_bottom) % 2 == p)
                && (!self.lists_empty || self.seen.contains(key))
        };
        let mut ordered: Vec<(String, String)> = Vec::new();
        match &self.spec.numbers {
            Numbers::None => return BTreeMap::new(),
            Numbers::List(list) => ordered = list.clone(),
            Numbers::FromTop | Numbers::FromBottom => {
                let rows: Vec<(usize, &String)> = if self.spec.numbers == Numbers::FromTop {
                    ranks_top_down.iter().enumerate().collect()
                } else {
                    ranks_top_down.iter().enumerate().rev().collect()
                };
                for (yi, rank) in rows {
                    for (xi, file) in files.iter().enumerate() {
                        let key = (file.clone(), rank.clone());
                        if in_use(xi, ranks_top_down.len() - 1 - yi, &key) {
                            ordered.push(key);
                        }
                    }
                }
            }
        }
        ordered.into_iter().zip(1..).collect()
    }

    /// How each content met so far is shown: as written when every content
    /// is at most three characters long (or annotated), else by initials.
    fn abbreviations(&self) -> BTreeMap<String, String> {
        let mut shown = BTreeMap::new();
        let long = self
            .contents
            .iter()
            .any(|c| self.piece(c).is_none() && c.chars().count() > 3);
        let mut taken: BTreeSet<String> = self.spec.pieces.values().cloned().collect();
        for c in &self.contents {
            let s = match self.piece(c) {
                Some(s) => s.clone(),
                None if !long => c.clone(),
                None => {
                    let mut s = initials(c);
                    if taken.contains(&s) {
                        s = c
                            .chars()
                            .filter(|ch| ch.is_alphanumeric())
                            .take(3)
                            .collect();
                    }
                    let base = s.clone();
                    let mut n = 2;
                    while taken.contains(&s) {
                        s = format!("{base}{n}");
                        n += 1;
                    }
                    s
                }
            };
            taken.insert(s.clone());
            shown.insert(c.clone(), s);
        }
        shown
    }

    /// How the `piece` annotations show a content, if they do.
    fn piece(&self, content: &str) -> Option<&String> {
        self.spec.pieces.get(&content.to_ascii_lowercase())
    }
}

/// The first letter of each word of a content: `white_king` -> `wk`,
/// `(white pawn)` -> `wp`, `black` -> `b`.
fn initials(content: &str) -> String {
    content
        .split(|c: char| !c.is_alphanumeric())
        .filter_map(|w| w.chars().next())
        .collect()
}

/// Fills the gaps of a sorted run of whole numbers or of single letters.
fn fill_gaps(sorted: Vec<String>) -> Vec<String> {
    if sorted.len() < 2 {
        return sorted;
    }
    if let Ok(numbers) = sorted
        .iter()
        .map(|s| s.parse::<i64>())
        .collect::<Result<Vec<_>, _>>()
    {
        let (lo, hi) = (numbers[0], numbers[numbers.len() - 1]);
        // Checked: the ends of i64 are 2^64 - 1 apart.
        let close = hi.checked_sub(lo).is_some_and(|gap| gap < 64);
        if close && sorted.iter().all(|s| !s.starts_with('0') || s == "0") {
            return (lo..=hi).map(|n| n.to_string()).collect();
        }
    }
    let letters: Option<Vec<char>> = sorted
        .iter()
        .map(|s| {
            let mut it = s.chars();
            match (it.next(), it.next()) {
                (Some(c), None) if c.is_ascii_lowercase() => Some(c),
                _ => None,
            }
        })
        .collect();
    if let Some(letters) = letters {
        return (letters[0]..=letters[letters.len() - 1])
            .map(String::from)
            .collect();
    }
    sorted
}

/// Joins words into lines of at most 100 characters.
fn wrap(words: &[String], separator: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for w in words {
        if !line.is_empty() && line.len() + separator.len() + w.len() > 100 {
            out.push_str(line.trim_end());
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push_str(separator);
        }
        line.push_str(w);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|s| s.to_string()).collect()
    }

    fn draw(spec: &str, states: &[Vec<String>]) -> String {
        let (spec, problems) = BoardSpec::from_source(spec);
        assert!(problems.is_empty(), "{problems:?}");
        let mut board = Board::new(spec);
        for s in states {
            board.observe(s);
        }
        board.draw(states.last().unwrap())
    }

    #[test]
    fn gaps_are_filled_only_between_close_numbers_even_at_the_ends_of_i64() {
        let texts = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(fill_gaps(texts(&["1", "3"])), texts(&["1", "2", "3"]));
        let ends = texts(&["-9223372036854775808", "9223372036854775807"]);
        assert_eq!(fill_gaps(ends.clone()), ends);
    }

    #[test]
    fn tic_tac_toe_grid_with_empty_marker_and_other_facts() {
        let mut s = Vec::new();
        for x in 1..=3 {
            for y in 1..=3 {
                let c = if (x, y) == (1, 3) { "x" } else { "b" };
                s.push(format!("(cell {x} {y} {c})"));
            }
        }
        s.push("(control oplayer)".into());
        let out = draw("", &[s]);
        assert_eq!(
            out,
            "   1 2 3\n3  x . .  3\n2  . . .  2\n1  . . .  1\n   1 2 3\n(control oplayer)\n"
        );
    }

    #[test]
    fn checkerboard_draws_light_squares_blank_and_numbers_from_top() {
        // Pieces only, on the dark squares (a1 dark) of a 4x4 board.
        let s = facts(&[
            "(cell a 1 wm)",
            "(cell c 1 wm)",
            "(cell b 2 wm)",
            "(cell d 4 bk)",
            "(cell b 4 bm)",
            "(turn white)",
        ]);
        let out = draw(";! numbers from-top\n", &[s]);
        let expected = concat!(
            "   a  b  c  d\n",
            "4     bm    bk  4       1   2\n",
            "3  .     .      3     3   4\n",
            "2     wm    .   2       5   6\n",
            "1  wm    wm     1     7   8\n",
            "   a  b  c  d\n",
            "(turn white)\n",
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn holes_are_cells_no_state_mentions_when_states_list_empty_cells() {
        let mut s = Vec::new();
        for x in 1..=3 {
            for y in 1..=3 {
                if (x, y) != (2, 2) {
                    s.push(format!(
                        "(cell {x} {y} {})",
                        if x == 1 { "wp" } else { "b" }
                    ));
                }
            }
        }
        let out = draw("", &[s.clone()]);
        assert!(out.contains("2  wp #  .   2"), "{out}");
        // Annotated holes are drawn even where no empty cell is listed.
        let only_piece = facts(&[
            "(cell 1 1 wp)",
            "(cell 3 3 bp)",
            "(cell 1 3 bp)",
            "(cell 3 1 wp)",
        ]);
        let out = draw(";! holes 2:2\n;! files 1 2 3\n", &[only_piece]);
        assert!(out.contains("\n2     #      2\n"), "{out}");
    }

    #[test]
    fn long_contents_are_abbreviated_with_a_legend() {
        let s = facts(&[
            "(cell a 1 white)",
            "(cell b 2 black)",
            "(cell a 3 white)",
            "(cell c 3 black)",
        ]);
        let out = draw("", &[s]);
        assert!(out.contains("\n3  w   b  3\n2    b    2\n"), "{out}");
        assert!(out.contains("b = black, w = white\n"), "{out}");
    }

    #[test]
    fn annotations_choose_relation_pieces_and_square_numbers() {
        let spec = ";! board at square=1 piece=2\n;! numbers b:2 a:1\n;! numbers c:1\n;! piece (white man) W\n";
        let s = facts(&[
            "(at 1 (white man))",
            "(at 3 (black man))",
            "(at 2 empty)",
            "(at 4 b)",
        ]);
        let out = draw(spec, &[s]);
        // Square 4 is not numbered: that fact is listed below the grid.
        // Cells without a number are unused, drawn blank.
        assert!(out.contains("\n2     W      2       1\n"), "{out}");
        assert!(out.contains("\n1  .     bm  1     2   3\n"), "{out}");
        assert!(out.contains("W = (white man)"), "{out}");
        assert!(out.contains("(at 4 b)"), "{out}");
        let (_, problems) = BoardSpec::from_source(";! board\n;! frobnicate\n;! holes 1-2\n");
        assert_eq!(problems.len(), 3, "{problems:?}");
    }

    #[test]
    fn square_numbers_of_one_colour_from_the_top() {
        // Brazilian draughts: a1 dark, b8 d8 f8 h8 are 1-4, a1 c1 e1 g1 29-32.
        let spec = ";! board cell square=1 piece=2\n;! files a b c d e f g h\n\
                    ;! ranks 1 2 3 4 5 6 7 8\n;! numbers from-top a:1\n";
        let (parsed, problems) = BoardSpec::from_source(spec);
        assert!(problems.is_empty(), "{problems:?}");
        let Numbers::List(list) = &parsed.numbers else {
            panic!("{:?}", parsed.numbers)
        };
        assert_eq!(list.len(), 32);
        assert_eq!(list[0], ("b".to_string(), "8".to_string()));
        assert_eq!(list[4], ("a".to_string(), "7".to_string()));
        assert_eq!(list[31], ("g".to_string(), "1".to_string()));
        let s = facts(&[
            "(cell 1 bm)",
            "(cell 32 wm)",
            "(cell 18 wk)",
            "(control white)",
        ]);
        let out = draw(spec, &[s]);
        assert!(
            out.starts_with("   a  b  c  d  e  f  g  h\n8     bm    .     .     .   8"),
            "{out}"
        );
        assert!(
            out.contains("\n1  .     .     .     wm     1     29    30    31    32\n"),
            "{out}"
        );
        let (_, problems) = BoardSpec::from_source(";! numbers from-top a:1\n");
        assert_eq!(problems.len(), 1, "{problems:?}");
    }

    #[test]
    fn no_cells_means_a_list_of_facts() {
        let s = facts(&["(step 10)", "(step 9)", "(control white)"]);
        assert_eq!(draw("", &[s]), "(control white)\n(step 9)\n(step 10)\n");
        let grid = facts(&[
            "(cell 1 1 x)",
            "(cell 1 2 x)",
            "(cell 2 1 x)",
            "(cell 2 2 x)",
        ]);
        assert_eq!(
            draw(";! board none\n", std::slice::from_ref(&grid))
                .lines()
                .count(),
            4
        );
    }
}
