//! The margin the player keeps from each clock: `--margin` seconds, and
//! what it measures of its own lateness on the replies before. A manager
//! starts a clock when it sends its message; the player counts from the
//! moment the request's headers are read, so the time the request took to
//! come in (from the connection's opening) is lost to it, and so is the
//! time from the deadline it aimed at to the answer handed back (a search
//! that stops a playout step late, a slow state). The largest of these
//! over the last replies is added to the margin of the next.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How many replies the measure remembers.
const REMEMBERED: usize = 8;

/// The margin: the floor asked for, and the lateness measured.
pub struct Margin {
    /// `--margin`.
    floor: Duration,
    /// The lateness of the last replies, newest last.
    late: VecDeque<Duration>,
}

impl Margin {
    /// A margin of `floor` seconds, nothing measured yet.
    pub fn new(floor: f64) -> Margin {
        Margin {
            floor: Duration::from_secs_f64(floor),
            late: VecDeque::with_capacity(REMEMBERED),
        }
    }

    /// The lateness measured: the largest of the last replies.
    pub fn measured(&self) -> Duration {
        self.late.iter().copied().max().unwrap_or_default()
    }

    /// The margin kept from `clock`: the floor and what was measured, at
    /// most 3/4 of the clock (so that some search is always left).
    pub fn of(&self, clock: Duration) -> Duration {
        (self.floor + self.measured()).min(clock * 3 / 4)
    }

    /// Notes one reply's lateness: the request's coming in (from `opened`
    /// to `received`), and the time past `deadline` at which the answer
    /// was ready (`now`).
    pub fn record(&mut self, opened: Instant, received: Instant, deadline: Instant) {
        let coming = received.saturating_duration_since(opened);
        let over = Instant::now().saturating_duration_since(deadline);
        if self.late.len() == REMEMBERED {
            self.late.pop_front();
        }
        self.late.push_back(coming + over);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_margin_grows_by_the_largest_lateness_and_stays_within_the_clock() {
        let mut m = Margin::new(0.5);
        let clock = Duration::from_secs(10);
        assert_eq!(m.of(clock), Duration::from_millis(500));
        let now = Instant::now();
        // A request 200 ms in coming, answered on time.
        m.record(
            now,
            now + Duration::from_millis(200),
            now + Duration::from_secs(60),
        );
        assert_eq!(m.measured(), Duration::from_millis(200));
        assert_eq!(m.of(clock), Duration::from_millis(700));
        assert_eq!(m.of(Duration::from_millis(400)), Duration::from_millis(300));
        // Forgotten after REMEMBERED replies on time.
        for _ in 0..REMEMBERED {
            let t = Instant::now();
            m.record(t, t, t + Duration::from_secs(60));
        }
        assert_eq!(m.measured(), Duration::ZERO);
    }
}
