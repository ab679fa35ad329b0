//! The network workload's burst (`Workload::Net`): guest CPU, a send over
//! the guest's QDIO device (HiperSockets: the sender's CPU held through the
//! rendezvous and the copy), the peer's turn as a wait, the reply's receive,
//! think. The times are the `net` component's.

use super::params::{NetPattern, Workload};
use super::{us_f, WorkState};
use crate::core::rng::Rng;
use crate::core::units::Ns;
use crate::model::cpu::{Burst, Outcome};
use crate::model::net::Avail;
use crate::model::{Cx, Model};

/// A virtual CPU's progress in a network workload.
#[derive(Clone, Copy, Debug)]
pub struct NetState {
    /// 0 = send, 1 = the send's held CPU, 2 = the reply is in.
    pub phase: u8,
    /// Round trip within the transaction (crr: 0 connect, 1 request).
    pub step: u8,
    /// CPU time of the send still to run.
    pub left: Ns,
    /// When the transaction began.
    pub t0: Ns,
    /// The peer's turn, waited for once the send is done.
    pub reply: Ns,
    /// The guest's device (the `net` component's index).
    pub dev: u32,
}

/// Bytes of a connect, its acknowledgement and a close (TCP segments with
/// no data) [E].
const CONTROL_BYTES: u64 = 64;

impl Model {
    /// One burst of a network workload on virtual CPU `v`.
    pub(super) fn net_burst(
        &mut self,
        cx: &mut Cx,
        v: u32,
        w: &Workload,
        budget: Ns,
        b: &mut Burst,
    ) {
        let Workload::Net {
            pattern,
            request,
            response,
            think,
            jitter,
            client_cpu_us,
            server_cpu_us,
            ..
        } = w
        else {
            unreachable!()
        };
        let vi = v as usize;
        let WorkState::Net(mut s) = self.work.vcpus[vi].work else {
            unreachable!()
        };
        let Model { work, net, cec, .. } = self;
        let av = Avail { cec: cec.as_ref() };
        let zvm = cec.as_ref().map(|_| 0usize);
        let rng = &mut work.vcpus[vi].rng;
        let connect = *pattern == NetPattern::Crr && s.step == 0;
        let vsw = net.is_vswitch(s.dev);
        if vsw && s.phase == 0 {
            // A virtual NIC: CP simulates the SIGA (the guest's CP time),
            // the VSWITCH forwards (system time), the uplink's line carries it.
            if s.step == 0 {
                s.t0 = cx.now();
            }
            let bytes = if connect { CONTROL_BYTES } else { *request };
            let sent = net.vswitch_send(s.dev, bytes, cx.now());
            cx.charge.cp += sent.cp;
            cx.charge.sys += sent.sys;
            s.left = if s.step == 0 { us_f(*client_cpu_us) } else { 0 };
            s.reply = match pattern {
                // The next message waits until this one has left the port.
                NetPattern::Stream => sent.wire,
                _ => {
                    let (cpu, back) = if connect {
                        (us_f(*server_cpu_us / 5.0), CONTROL_BYTES)
                    } else {
                        (us_f(*server_cpu_us), *response)
                    };
                    net.vswitch_turn(s.dev, cpu, back, cx.now() + sent.wire, av, rng) - cx.now()
                }
            };
            s.phase = 1;
        }
        if s.phase == 0 {
            if s.step == 0 {
                s.t0 = cx.now();
            }
            let bytes = if connect { CONTROL_BYTES } else { *request };
            let mut hold = net.send(s.dev, bytes, av, rng);
            if s.step == 0 {
                hold += us_f(*client_cpu_us);
            }
            s.left = hold;
            s.reply = match pattern {
                NetPattern::Stream => 0,
                _ => {
                    let (cpu, back) = if connect {
                        (us_f(*server_cpu_us / 5.0), CONTROL_BYTES)
                    } else {
                        (us_f(*server_cpu_us), *response)
                    };
                    net.peer_turn(s.dev, cpu, back, zvm, av, rng)
                }
            };
            s.phase = 1;
        }
        match s.phase {
            1 => {
                let run = s.left.min(budget);
                s.left -= run;
                b.virt = run;
                b.outcome = Outcome::Slice;
                if s.left == 0 {
                    if *pattern == NetPattern::Stream {
                        net.done(s.dev, (cx.now() + run).saturating_sub(s.t0));
                        s.phase = 0;
                        // Through a VSWITCH uplink: not before the port took it.
                        let wait = s.reply.saturating_sub(run);
                        if think.0 > 0 {
                            b.outcome = Outcome::Think(pause(think.0, *jitter, rng).max(wait));
                        } else if wait > 0 {
                            b.outcome = Outcome::Think(wait);
                        }
                    } else {
                        s.phase = 2;
                        b.outcome = Outcome::Think(s.reply.max(1));
                    }
                }
            }
            _ => {
                let back = if connect { CONTROL_BYTES } else { *response };
                if vsw {
                    let (cp, sys) = net.vswitch_receive(s.dev, back);
                    cx.charge.cp += cp;
                    cx.charge.sys += sys;
                } else {
                    cx.charge.cp += net.receive(s.dev, back);
                }
                s.phase = 0;
                b.outcome = Outcome::Slice;
                if connect {
                    s.step = 1;
                } else {
                    if *pattern == NetPattern::Crr {
                        // The close: one more frame out, no reply waited for.
                        if vsw {
                            let c = net.vswitch_send(s.dev, CONTROL_BYTES, cx.now());
                            cx.charge.cp += c.cp;
                            cx.charge.sys += c.sys;
                        } else {
                            b.virt = net.send(s.dev, CONTROL_BYTES, av, rng).min(budget);
                        }
                    }
                    net.done(
                        s.dev,
                        (cx.now() + b.virt + cx.charge.cp).saturating_sub(s.t0),
                    );
                    s.step = 0;
                    if think.0 > 0 {
                        b.outcome = Outcome::Think(pause(think.0, *jitter, rng));
                    }
                }
            }
        }
        self.work.vcpus[vi].work = WorkState::Net(s);
    }
}

/// A think time of `mean` ns drawn from `mean (1 - jitter)` to
/// `mean (1 + jitter)`; exactly `mean` without jitter (no draw).
fn pause(mean: Ns, jitter: f64, rng: &mut Rng) -> Ns {
    if jitter == 0.0 {
        return mean;
    }
    (mean as f64 * (1.0 - jitter + 2.0 * jitter * rng.f64())) as Ns
}
