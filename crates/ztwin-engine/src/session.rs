//! An interactive run (`ztwin console`): the twin advanced step by step of
//! simulated time, with CP commands issued between the steps, as an operator
//! at a console would. The MONWRITE stream is the same as a batch run's with
//! the same scenario, seed and commands at the same simulated times (the
//! commands go through the same wiring as a timeline `cp` action).

use crate::core::units::Ns;
use crate::model::monitor::Emitter;
use crate::model::{cp, Cx, RunError, Twin};
use crate::scenario::Scenario;

pub struct Session<W: std::io::Write> {
    twin: Twin,
    emit: Option<Emitter<W>>,
    /// The scenario's end (simulated).
    end: Ns,
    started: bool,
}

impl<W: std::io::Write> Session<W> {
    /// A session of scenario `sc` (validated) with `seed`, writing to `w`;
    /// nothing runs until the first [`Session::run_to`] or command.
    pub fn new(sc: &Scenario, seed: Option<u64>, w: W) -> Session<W> {
        let seed = seed.unwrap_or(sc.scenario.seed);
        let start = ztwin_monitor::tod::parse_iso8601(&sc.scenario.start).expect("validated");
        let end = sc.scenario.duration.0;
        let mut twin = Twin::new(sc, seed, Some(0));
        twin.core.end = 0;
        Session {
            twin,
            emit: Some(Emitter::new(w, start, sc.release())),
            end,
            started: false,
        }
    }

    /// Simulated time now, and the scenario's end.
    pub fn now(&self) -> Ns {
        self.twin.core.now
    }
    pub fn end(&self) -> Ns {
        self.end
    }

    fn emitter(&mut self) -> Result<&mut Emitter<W>, RunError> {
        self.emit
            .as_mut()
            .ok_or_else(|| RunError::Io("the session has ended".into()))
    }

    fn begin(&mut self) -> Result<(), RunError> {
        if !self.started {
            self.started = true;
            let emit = self
                .emit
                .as_mut()
                .ok_or_else(|| RunError::Io("the session has ended".into()))?;
            self.twin.begin(emit)?;
        }
        Ok(())
    }

    /// Run on to simulated time `t` (at most the scenario's end).
    pub fn run_to(&mut self, t: Ns) -> Result<(), RunError> {
        self.begin()?;
        let t = t.min(self.end).max(self.twin.core.now);
        self.twin.core.end = t;
        let emit = self
            .emit
            .as_mut()
            .ok_or_else(|| RunError::Io("the session has ended".into()))?;
        self.twin.resume(emit, &mut |_, _| true)
    }

    /// Issue CP command `line` now, by `issuer` (a user ID; None: the
    /// operator). Returns the console lines it produced (the echo and the
    /// response; a response that needs simulated time, SAVESEG's, comes in a
    /// later step's lines). An unknown user ID is CP's HCP045E.
    pub fn command(&mut self, issuer: Option<&str>, line: &str) -> Result<Vec<String>, RunError> {
        self.begin()?;
        let m = &mut self.twin.model;
        let who = match issuer {
            None => cp::OPERATOR,
            Some(u) => {
                let up = u.to_ascii_uppercase();
                match (0..m.cpu.guest_count()).find(|&g| m.cpu.guest(g).userid == up) {
                    Some(g) => g,
                    None => return Ok(vec![format!("HCP045E {up} not logged on")]),
                }
            }
        };
        let mut cx = Cx::new(&mut self.twin.core, 0);
        m.cp_command(&mut cx, who, line);
        debug_assert_eq!(cx.charge, Default::default());
        if m.cpu.any_ready() {
            m.dispatch_idle_cpus(&mut self.twin.core);
        }
        Ok(self.twin.model.console.take())
    }

    /// Console lines produced by the steps since the last call.
    pub fn take_console(&mut self) -> Vec<String> {
        self.twin.model.console.take()
    }

    /// Run to the scenario's end and close the MONWRITE stream.
    pub fn finish(&mut self) -> Result<W, RunError> {
        let end = self.end;
        self.run_to(end)?;
        self.emitter()?;
        let emit = self.emit.take().expect("present");
        emit.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::units::SEC;

    const SC: &str = r#"
[scenario]
duration = "180s"
[system]
processors = 2
central_storage = "256M"
xstor = "64M"
[vdisk]
userlim = "infinite"
[monitor]
sample_interval = "60s"
[[paging]]
device_type = "3390-3"
count = 2
first_address = "7900"
volser_prefix = "PG"
[[guest]]
userid = "LNX"
virtual_storage = "256M"
workload = { type = "thrasher", area = "200M", pattern = "random", touch = "write", cpu_per_touch_us = 5.0 }
[[guest]]
userid = "CMS"
virtual_storage = "32M"
"#;

    /// Stepping without commands gives the batch run's bytes exactly.
    #[test]
    fn steps_without_commands_are_the_batch_run() {
        let sc = Scenario::from_toml(SC, "s.toml").unwrap();
        let mut batch = Vec::new();
        crate::run_to_writer(&sc, None, None, &mut batch, &mut |_, _| true).unwrap();
        let mut s = Session::new(&sc, None, Vec::new());
        for t in [1, 59, 60, 61, 125] {
            s.run_to(t * SEC).unwrap();
            assert_eq!(s.now(), t * SEC);
        }
        let out = s.finish().unwrap();
        assert!(out == batch, "a stepped session differs from the batch run");
        assert!(s.finish().is_err(), "a finished session cannot go on");
    }

    /// Commands between steps: CP's responses come back at once; a bad one
    /// gets CP's message; an unknown issuer HCP045E; the same script twice
    /// gives the same bytes.
    #[test]
    fn commands_between_steps() {
        let sc = Scenario::from_toml(SC, "s.toml").unwrap();
        let script = |s: &mut Session<Vec<u8>>| -> Vec<String> {
            let mut out = Vec::new();
            s.run_to(30 * SEC).unwrap();
            out.extend(
                s.command(Some("cms"), "define vfb-512 as 0300 blk 8000")
                    .unwrap(),
            );
            out.extend(s.command(None, "q vdisk syslim").unwrap());
            out.extend(s.command(None, "frobnicate").unwrap());
            out.extend(s.command(Some("NOBODY"), "q vdisk").unwrap());
            s.run_to(90 * SEC).unwrap();
            out.extend(s.command(Some("CMS"), "detach 300").unwrap());
            out
        };
        let mut a = Session::new(&sc, None, Vec::new());
        let lines = script(&mut a);
        let text = lines.join("\n");
        assert!(
            text.contains("00:00:30.000 CMS      > define vfb-512 as 0300 blk 8000"),
            "{text}"
        );
        assert!(
            text.contains("00:00:30.000 CMS      DASD 0300 DEFINED"),
            "{text}"
        );
        assert!(
            text.contains("VDISK SYSTEM LIMIT IS 131072 BLK, 8000 BLK IN USE"),
            "{text}"
        );
        assert!(
            text.contains("HCP001E Unknown CP command: FROBNICATE"),
            "{text}"
        );
        assert!(text.contains("HCP045E NOBODY not logged on"), "{text}");
        assert!(
            text.contains("00:01:30.000 CMS      DASD 0300 DETACHED"),
            "{text}"
        );
        let bytes = a.finish().unwrap();
        let mut b = Session::new(&sc, None, Vec::new());
        assert_eq!(script(&mut b), lines);
        assert!(
            b.finish().unwrap() == bytes,
            "the same script repeats byte for byte"
        );
    }
}
