//! The bounds every stage respects, their defaults, and the kinds of limit
//! an error can name.

use std::fmt;
use std::sync::OnceLock;

/// How deep lists may nest in a rules file unless the user raises it.
pub const DEFAULT_MAX_NESTING: usize = 200;

/// The deepest nesting any caller may ask for: deeper lists are refused
/// whatever [`Limits::max_nesting`] says. The reading is recursive; the `gdl`
/// command runs on a thread with a stack large enough for this depth (a
/// thread with the usual 8 MiB stack reads about 15,000 levels in release
/// mode).
pub const MAX_NESTING_CEILING: usize = 10_000;

/// The largest text the reader accepts, in bytes: offsets in a file are
/// kept in 32 bits ([`crate::Span`]). A larger file is refused
/// (`too-large`).
pub const MAX_SOURCE_BYTES: usize = u32::MAX as usize;

/// The most variables one clause may have: the planner numbers them in 16
/// bits (`plan::Pat::Var`), and the checker refuses a rule with more
/// (`too-many-variables`).
pub const MAX_CLAUSE_VARIABLES: usize = u16::MAX as usize;

/// The default of [`Limits::max_work`]: about 8 s of joins (measured on
/// the shared 2-core machine: `gdl check` of a six-way cross product).
pub const DEFAULT_MAX_WORK: u64 = 1_000_000_000;

/// The default of [`Limits::max_ground_atoms`]: no count. Grounding is
/// bounded by memory instead, its share of [`Limits::max_memory`] (an
/// eighth: the facts that could hold and the ground rules over them), and
/// by [`Limits::max_ground_work`]; past either, the game is evaluated by
/// the interpreter.
pub const DEFAULT_MAX_ATOMS: usize = usize::MAX;

/// Bounds that stop rules which would derive without end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most facts one model (static, one state's, or one joint move's)
    /// may hold.
    pub max_facts: usize,
    /// The deepest term a rule may build.
    pub max_term_depth: usize,
    /// How deep lists may nest in a rules file (at most
    /// [`MAX_NESTING_CEILING`]).
    pub max_nesting: usize,
    /// How many candidate facts grounding may look at, and terms it may
    /// build, before it gives up and the interpreter is used instead; 0
    /// never grounds.
    pub max_ground_work: u64,
    /// The most facts that could hold (atoms) a grounding attempt accepts
    /// before it gives up and the interpreter is used instead; by default
    /// none (`usize::MAX`): grounding is bounded by its share of
    /// [`Limits::max_memory`] and by [`Limits::max_ground_work`].
    pub max_ground_atoms: usize,
    /// How many candidate facts the joins of one evaluation (the static
    /// facts, one state's or one joint move's) may look at: bounds rules
    /// whose joins would run for hours without deriving much.
    pub max_work: u64,
    /// The most bytes the process may hold on its heap: the stages stop
    /// with a [`LimitKind::Memory`] error where they grow past it, and the
    /// model memo forgets models to stay well within it. Enforced when
    /// [`crate::CountingAllocator`] is the global allocator (it is in the
    /// `gdl` command). The default is [`crate::default_max_memory`].
    pub max_memory: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_facts: 10_000_000,
            max_term_depth: 64,
            max_nesting: DEFAULT_MAX_NESTING,
            max_ground_work: 50_000_000,
            max_ground_atoms: DEFAULT_MAX_ATOMS,
            max_work: DEFAULT_MAX_WORK,
            max_memory: cached_default_max_memory(),
        }
    }
}

/// [`crate::default_max_memory`], worked out once.
fn cached_default_max_memory() -> usize {
    static DEFAULT: OnceLock<usize> = OnceLock::new();
    *DEFAULT.get_or_init(crate::memory::default_max_memory)
}

/// Which limit stopped an evaluation (see [`crate::GameError::Limit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LimitKind {
    /// [`Limits::max_facts`]: the facts of one model.
    Facts,
    /// The body literals of all ground rules together (a fixed bound,
    /// raised with the facts limit).
    GroundLiterals,
    /// [`Limits::max_ground_work`]: grounding gave up (the interpreter is
    /// used instead; never reported to the user).
    GroundingWork,
    /// [`Limits::max_work`]: the candidate facts of one evaluation's joins.
    JoinWork,
    /// [`Limits::max_term_depth`]: the depth of a term a rule builds.
    TermDepth,
    /// [`Limits::max_memory`]: the bytes the process holds.
    Memory,
    /// [`Limits::max_nesting`]: how deep lists nest in a rules file.
    Nesting,
    /// [`Limits::max_ground_atoms`]: the atoms of a grounding (reported
    /// where ground rules were asked for and did not fit).
    GroundAtoms,
}

impl LimitKind {
    /// What is limited, in words (`facts`, `term depth`).
    pub fn name(self) -> &'static str {
        match self {
            LimitKind::Facts => "facts",
            LimitKind::GroundLiterals => "ground literals",
            LimitKind::GroundingWork => "grounding work",
            LimitKind::JoinWork => "join work",
            LimitKind::TermDepth => "term depth",
            LimitKind::Memory => "memory",
            LimitKind::Nesting => "nesting",
            LimitKind::GroundAtoms => "ground atoms",
        }
    }

    /// The field of [`Limits`] that sets it (`max_work`): callers name
    /// their own way to raise it from this (the command's flag
    /// `--max-work`, Python's `limits={"max_work": ...}`).
    pub fn field(self) -> &'static str {
        match self {
            LimitKind::Facts | LimitKind::GroundLiterals => "max_facts",
            LimitKind::GroundingWork => "max_ground_work",
            LimitKind::JoinWork => "max_work",
            LimitKind::TermDepth => "max_term_depth",
            LimitKind::Memory => "max_memory",
            LimitKind::Nesting => "max_nesting",
            LimitKind::GroundAtoms => "max_ground_atoms",
        }
    }
}

impl fmt::Display for LimitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
