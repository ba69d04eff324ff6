//! Measuring playout speed: a timed run split into equal rounds, so that a
//! rate is quoted as the median of its rounds, and the process's peak
//! memory. Used by `gdl bench` and by the benchmarks, which time the games'
//! direct Rust engines the same way.

use std::time::{Duration, Instant};

/// Playouts finished and the states they went through (joint moves played).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Playouts finished.
    pub playouts: u64,
    /// States reached by a joint move, over those playouts.
    pub states: u64,
}

impl Count {
    fn add(&mut self, other: Count) {
        self.playouts += other.playouts;
        self.states += other.states;
    }
}

/// What a timed run counted, round by round. Rounds are equal slices of the
/// run's time; a playout counts in the round in which it ended (one still
/// under way at the deadline is stopped and not counted, by `run_until`).
#[derive(Clone, Debug)]
pub struct Rounds {
    start: Instant,
    round: Duration,
    counts: Vec<Count>,
}

impl Rounds {
    /// An empty record of `rounds` rounds (at least one) sharing `seconds`
    /// from `start`.
    pub fn new(start: Instant, seconds: f64, rounds: usize) -> Rounds {
        let rounds = rounds.max(1);
        Rounds {
            start,
            round: Duration::from_secs_f64(seconds / rounds as f64),
            counts: vec![Count::default(); rounds],
        }
    }

    /// When the run ends.
    pub fn deadline(&self) -> Instant {
        self.start + self.round * self.counts.len() as u32
    }

    /// Counts a playout of `steps` joint moves that ended at `at`.
    pub fn record(&mut self, at: Instant, steps: usize) {
        self.record_all(
            at,
            Count {
                playouts: 1,
                states: steps as u64,
            },
        );
    }

    /// Counts playouts that ended by `at` (a batch read the clock once).
    fn record_all(&mut self, at: Instant, count: Count) {
        let elapsed = at.saturating_duration_since(self.start).as_secs_f64();
        let i = ((elapsed / self.round.as_secs_f64()) as usize).min(self.counts.len() - 1);
        self.counts[i].add(count);
    }

    /// Adds another thread's counts of the same run, round by round.
    pub fn merge(&mut self, other: &Rounds) {
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            mine.add(*theirs);
        }
    }

    /// The rounds a run stopped at `at` (Ctrl-C) played whole, and the
    /// seconds they cover: it is summarised over them, not the empty
    /// rounds after. When not even the first was whole, it alone, cut to
    /// the time it lasted.
    pub fn finished_by(&self, at: Instant) -> (Rounds, f64) {
        let elapsed = at.saturating_duration_since(self.start);
        let whole = (elapsed.as_secs_f64() / self.round.as_secs_f64()) as usize;
        let mut rounds = self.clone();
        if whole == 0 {
            rounds.counts.truncate(1);
            rounds.round = elapsed.max(Duration::from_micros(1));
        } else {
            rounds.counts.truncate(whole.min(self.counts.len()));
        }
        let covered = rounds.round.as_secs_f64() * rounds.counts.len() as f64;
        (rounds, covered)
    }

    /// The counts of each round.
    pub fn counts(&self) -> &[Count] {
        &self.counts
    }

    /// Everything counted.
    pub fn total(&self) -> Count {
        let mut total = Count::default();
        self.counts.iter().for_each(|c| total.add(*c));
        total
    }

    /// The rates of the run, whose counted playouts took `elapsed` seconds
    /// in all (the overall rates are over that time).
    pub fn summary(&self, elapsed: f64) -> Summary {
        let total = self.total();
        let round = self.round.as_secs_f64();
        // A round in which no playout ended says only that playouts take
        // longer than a round: its rate of 0 is not one, and neither is the
        // median it drags down. Such a run is rated by its whole.
        let by_rounds = self.counts.iter().all(|c| c.playouts > 0);
        let per_second = |f: fn(&Count) -> u64| {
            // Nothing counted takes no time: no rate, 0.
            let overall = if elapsed > 0.0 {
                f(&total) as f64 / elapsed
            } else {
                0.0
            };
            if !by_rounds {
                return Rate {
                    median: overall,
                    low: overall,
                    high: overall,
                    overall,
                };
            }
            let mut rates: Vec<f64> = self.counts.iter().map(|c| f(c) as f64 / round).collect();
            rates.sort_by(f64::total_cmp);
            Rate {
                median: median(&rates),
                low: rates[0],
                high: rates[rates.len() - 1],
                overall,
            }
        };
        Summary {
            total,
            seconds: elapsed,
            rounds: self.counts.len(),
            by_rounds,
            playouts: per_second(|c| c.playouts),
            states: per_second(|c| c.states),
            mean_depth: total.states as f64 / total.playouts.max(1) as f64,
        }
    }
}

/// The median of sorted numbers (the mean of the middle two of an even
/// count); 0 for none.
fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// A rate per second: the median, lowest and highest over the rounds, and
/// the whole run's count over its whole time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Median over the rounds.
    pub median: f64,
    /// Slowest round.
    pub low: f64,
    /// Fastest round.
    pub high: f64,
    /// Whole count over whole time.
    pub overall: f64,
}

/// The figures of a timed run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Everything counted.
    pub total: Count,
    /// The time the counted playouts took, over which the overall rates
    /// are computed.
    pub seconds: f64,
    /// Rounds the run was split into.
    pub rounds: usize,
    /// Whether the rates are of the rounds (a playout ended in each), or,
    /// when some round ended none, of the whole run: then every figure of
    /// a [`Rate`] is the overall one.
    pub by_rounds: bool,
    /// Playouts per second.
    pub playouts: Rate,
    /// States per second.
    pub states: Rate,
    /// States per playout.
    pub mean_depth: f64,
}

/// How a run went beyond its counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// The time from the run's start to the end of the last playout
    /// counted (0 when none was): what the counted playouts took.
    pub seconds: f64,
    /// Whether a playout was under way at the deadline, stopped and not
    /// counted.
    pub stopped: bool,
}

/// A batch of playouts between two reads of the clock is doubled while it
/// takes less than this, so that reading the clock costs little beside
/// playouts of a microsecond (a game of one or two moves).
const BATCH: Duration = Duration::from_micros(20);

/// The most playouts between two reads of the clock.
const MAX_BATCH: u32 = 1024;

/// Calls `playout` until the run's deadline, recording each playout that
/// ends in `rounds`. `playout` is given the deadline and returns the joint
/// moves it played, or `None` when it was still under way at the deadline
/// and stopped there: it is not counted, and the run ends. The first error
/// stops the run, the playouts before it counted. The clock is read after
/// each batch of playouts, each of which counts as ending then: one at
/// first, twice as many while a batch takes under `BATCH`.
pub fn run_until<E>(
    rounds: &mut Rounds,
    mut playout: impl FnMut(Instant) -> Result<Option<usize>, E>,
) -> Result<Run, E> {
    let deadline = rounds.deadline();
    let mut run = Run {
        seconds: 0.0,
        stopped: false,
    };
    let mut now = Instant::now();
    let mut batch = 1;
    while now < deadline {
        let mut count = Count::default();
        let mut error = None;
        for _ in 0..batch {
            match playout(deadline) {
                Ok(Some(steps)) => count.add(Count {
                    playouts: 1,
                    states: steps as u64,
                }),
                Ok(None) => run.stopped = true,
                Err(e) => error = Some(e),
            }
            if run.stopped || error.is_some() {
                break;
            }
        }
        let before = now;
        now = Instant::now();
        if count.playouts > 0 {
            rounds.record_all(now, count);
            run.seconds = now.duration_since(rounds.start).as_secs_f64();
        }
        if let Some(e) = error {
            return Err(e);
        }
        if run.stopped {
            break;
        }
        if now.duration_since(before) < BATCH && batch < MAX_BATCH {
            batch *= 2;
        }
    }
    Ok(run)
}

/// The largest resident set this process has had so far, in KiB: on
/// Linux its memory's high-water mark (`VmHWM` of `/proc/self/status`,
/// which starts anew when the program starts, where `getrusage` also
/// counts the memory of the process that started it, until it ran this
/// program), else `getrusage`'s maximum resident set size; `None` where
/// unknown.
pub fn peak_rss_kib() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let hwm = (status.lines())
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok());
        if hwm.is_some() {
            return hwm;
        }
        // SAFETY: getrusage fills the zeroed struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: a valid pointer to a rusage struct.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0 {
            // Linux reports KiB (macOS reports bytes, hence Linux only).
            return u64::try_from(usage.ru_maxrss).ok();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playouts_count_in_the_round_they_end_and_rates_are_medians() {
        let start = Instant::now();
        let mut rounds = Rounds::new(start, 3.0, 3);
        assert_eq!(rounds.deadline(), start + Duration::from_secs(3));
        let at = |s: f64| start + Duration::from_secs_f64(s);
        // Round 0: one playout of 10 steps; round 1: three of 4; round 2:
        // two of 5, one of them ending past the deadline.
        rounds.record(at(0.5), 10);
        for _ in 0..3 {
            rounds.record(at(1.5), 4);
        }
        rounds.record(at(2.9), 5);
        rounds.record(at(3.2), 5);
        let counts: Vec<_> = rounds.counts().iter().map(|c| c.playouts).collect();
        assert_eq!(counts, [1, 3, 2]);
        assert!(rounds.summary(3.2).by_rounds);
        let mut other = Rounds::new(start, 3.0, 3);
        other.record(at(0.1), 2);
        rounds.merge(&other);
        // Playouts per round: 2, 3, 2.
        let s = rounds.summary(4.0);
        assert_eq!(
            s.total,
            Count {
                playouts: 7,
                states: 34
            }
        );
        assert_eq!(s.playouts.median, 2.0);
        assert_eq!((s.playouts.low, s.playouts.high), (2.0, 3.0));
        assert_eq!(s.playouts.overall, 7.0 / 4.0);
        // States per round: 12, 12, 10.
        assert_eq!(s.states.median, 12.0);
        assert_eq!(s.mean_depth, 34.0 / 7.0);
    }

    #[test]
    fn a_run_stopped_early_keeps_the_rounds_it_finished() {
        let start = Instant::now();
        let at = |s: f64| start + Duration::from_secs_f64(s);
        let mut rounds = Rounds::new(start, 4.0, 4);
        rounds.record(at(0.5), 3);
        rounds.record(at(1.5), 3);
        rounds.record(at(2.1), 3);
        let (kept, seconds) = rounds.finished_by(at(2.5));
        assert_eq!(kept.counts().len(), 2);
        assert_eq!(kept.total().playouts, 2);
        assert_eq!(seconds, 2.0);
        // Not even one round whole: the first is kept, as long as it lasted.
        let (first, seconds) = rounds.finished_by(at(0.5));
        assert_eq!(first.counts().len(), 1);
        assert_eq!(seconds, 0.5);
        assert_eq!(first.summary(seconds).playouts.median, 2.0);
        assert_eq!(rounds.finished_by(at(9.0)).0.counts().len(), 4);
    }

    #[test]
    fn a_run_with_a_round_that_ended_no_playout_is_rated_by_its_whole() {
        let start = Instant::now();
        let at = |s: f64| start + Duration::from_secs_f64(s);
        // Two playouts of 0.4 s in five rounds of 0.2 s: three rounds
        // ended none, and their median would be 0.
        let mut rounds = Rounds::new(start, 1.0, 5);
        rounds.record(at(0.4), 26);
        rounds.record(at(0.8), 30);
        let s = rounds.summary(0.8);
        assert!(!s.by_rounds);
        assert_eq!(s.playouts.median, 2.5);
        assert_eq!((s.playouts.low, s.playouts.high), (2.5, 2.5));
        assert_eq!(s.states.median, 70.0);
        // Nothing finished: no rate.
        let s = Rounds::new(start, 1.0, 5).summary(0.0);
        assert_eq!((s.by_rounds, s.playouts.median), (false, 0.0));
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&[1.0, 2.0, 4.0, 8.0]), 3.0);
        assert_eq!(median(&[5.0]), 5.0);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn a_run_ends_at_its_deadline_and_stops_at_the_first_error() {
        let mut rounds = Rounds::new(Instant::now(), 0.05, 2);
        let run = run_until(&mut rounds, |_| Ok::<_, ()>(Some(3))).unwrap();
        assert!(Instant::now() >= rounds.deadline());
        assert!(!run.stopped);
        assert!(run.seconds >= 0.05, "{run:?}");
        assert!(rounds.total().playouts > 0);
        assert_eq!(rounds.total().states, 3 * rounds.total().playouts);
        let mut calls = 0;
        let mut rounds = Rounds::new(Instant::now(), 60.0, 1);
        let e = run_until(&mut rounds, |_| {
            calls += 1;
            if calls == 3 { Err("stop") } else { Ok(Some(1)) }
        });
        assert_eq!(e, Err("stop"));
        assert_eq!(rounds.total().playouts, 2);
    }

    #[test]
    fn a_playout_stopped_at_the_deadline_is_not_counted() {
        let start = Instant::now();
        let mut rounds = Rounds::new(start, 60.0, 3);
        let mut calls = 0;
        let run = run_until(&mut rounds, |deadline| {
            assert_eq!(deadline, start + Duration::from_secs(60));
            calls += 1;
            Ok::<_, ()>((calls < 3).then_some(4))
        })
        .unwrap();
        assert!(run.stopped);
        assert_eq!(calls, 3);
        assert_eq!(
            rounds.total(),
            Count {
                playouts: 2,
                states: 8
            }
        );
        assert!(run.seconds > 0.0 && run.seconds < 60.0, "{run:?}");
        // Nothing finished: the run ends where it began.
        let mut rounds = Rounds::new(start, 60.0, 3);
        let run = run_until(&mut rounds, |_| Ok::<_, ()>(None)).unwrap();
        assert_eq!((run.seconds, run.stopped), (0.0, true));
        assert_eq!(rounds.total().playouts, 0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn peak_memory_is_known_on_linux() {
        let kib = peak_rss_kib().unwrap();
        assert!(kib > 100, "{kib} KiB");
    }
}
