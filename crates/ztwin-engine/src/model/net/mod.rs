//! The network component: HiperSockets channel paths, the guests' real QDIO
//! devices (HiperSockets or OSA), and how long a send, a receive and the
//! peer's turn take.
//!
//! **Owns** the HiperSockets CHPIDs of the CEC (`[[hipersockets]]`: frame
//! size, copy rate), each guest's QDIO device (its device number, format,
//! CHPID, the partition at the other end) with its cumulative counters
//! (SIGA-w and SIGA-r issued, frames and bytes out and in, transactions and
//! their response times, time blocked in a HiperSockets rendezvous), and the
//! activations and deactivations not yet written (the monitor drains them).
//!
//! **The model** (zvm-model.md topic 9; case study "HiperSockets Seem
//! Slow"): a HiperSockets send is a synchronous copy. The two processors
//! meet in firmware, the firmware copying from the sender's buffers to the
//! receiver's on the processors that made the calls, and the sender is
//! blocked until the copy is done. So the copy needs the receiving
//! partition's logical processor that owns the inbound queue to be running
//! on a physical processor: if PR/SM has it undispatched, the sender waits
//! (its CPU held) until it is. A logical processor that PR/SM gives a
//! fraction `f` of its ready time (its partition's delivered share of its
//! demand in the current dispatch interval, `lpar::Cec::availability`) in
//! slices of the dispatch interval `s` is undispatched a share `1 - f` of
//! the time, each gap `s (1 - f) / f` long: a send finds it undispatched
//! with probability `1 - f` and then waits a uniform part of a gap [E: the
//! slice is PR/SM's dispatch interval]. The copy itself takes bytes over the
//! CHPID's copy rate. An OSA send is asynchronous: the sender's SIGA starts
//! it and returns; the adapter delivers after its latency, and the inbound
//! data is an I/O interrupt that the receiving partition takes on whichever
//! of its logical processors PR/SM dispatches first [K: floating I/O
//! interrupts], so its wait is the shortest of one gap draw per logical
//! processor. The peer's own work (a server's CPU per request) runs at its
//! delivered fraction: `cpu / f` of wall time. The receiving z/VM side pays
//! CP time per inbound frame (`[net] receive_us`).
//!
//! **Interface**: [`Net::send`] (the sender's held CPU time: copy and
//! rendezvous, or the SIGA), [`Net::peer_turn`] (the time from a request's
//! arrival to its reply being back in the guest's buffers), [`Net::receive`]
//! (CP time of the inbound frames), [`Net::done`] (a transaction's response
//! time), [`Net::activate`] / [`Net::deactivate`] (the guest's workload
//! starts and stops). Availabilities come from the CEC, passed in.
//!
//! **Events**: none (the waits are the workload's think times).
//!
//! **Counters**: [`QdioCounters`] per device, owner-written; the monitor
//! reads [`Net::devices`] and [`Net::take_events`].

pub mod params;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod vswitch_tests;

use crate::core::rng::Rng;
use crate::core::units::Ns;
use crate::core::us_to_ns;
use params::{parse_chpid, parse_rdev, HiperSockets, Osa, Params, Vswitch};

/// The adapter a network workload uses; its QDIO format
/// (IODQDA_QDIOFMT): 0 QDIO (OSA), 2 HiperSockets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
pub enum Via {
    #[serde(rename = "osa")]
    Osa,
    #[serde(rename = "hipersockets")]
    HiperSockets,
    /// A virtual NIC coupled to a `[[vswitch]]` (CP simulates the QDIO
    /// device; no real device of the guest's).
    #[serde(rename = "vswitch")]
    Vswitch,
}

impl Via {
    pub fn format(self) -> u8 {
        match self {
            Via::Osa | Via::Vswitch => 0,
            Via::HiperSockets => 2,
        }
    }
}

/// A guest's QDIO device as the scenario defines it.
#[derive(Clone, Debug)]
pub struct DevDef {
    pub devno: u16,
    pub guest: u32,
    pub via: Via,
    pub chpid: u8,
    /// The CEC's entry of the partition at the other end (`None`: the
    /// partition owns its processors outright, no CEC: always available).
    pub peer: Option<usize>,
    /// `via = "vswitch"`: the VSWITCH (index in `[[vswitch]]`), the VLAN,
    /// and whether the peer is another partition (through the uplink) or
    /// this one (guest to guest, the OSA not involved).
    pub vsw: Option<usize>,
    pub vlan: u16,
    pub external: bool,
}

/// A device's cumulative counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QdioCounters {
    /// SIGA-w (write) instructions the guest issued.
    pub siga_w: u64,
    /// SIGA-r (read) instructions the guest issued.
    pub siga_r: u64,
    pub frames_out: u64,
    pub frames_in: u64,
    pub bytes_out: u64,
    pub bytes_in: u64,
    /// Transactions completed and their response times (ns; the longest).
    pub transactions: u64,
    pub resp_ns: u64,
    pub resp_max_ns: u64,
    /// Time senders were blocked waiting for the receiver's processor.
    pub wait_ns: u64,
    /// Sends that found the receiver undispatched.
    pub waits: u64,
}

/// A device as the monitor sees it.
#[derive(Clone, Copy, Debug)]
pub struct DevSample {
    pub devno: u16,
    pub guest: u32,
    pub format: u8,
    pub chpid: u8,
    pub active: bool,
    pub c: QdioCounters,
}

/// A device activated or deactivated (an event record to write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevEvent {
    Activate,
    Deactivate,
}

struct Chpid {
    id: u8,
    mfs: u32,
    /// Copy time per byte, ns.
    ns_per_byte: f64,
}

/// A VSWITCH's cumulative counters (its uplink's, as MRIODVSW has them, and
/// the guest-to-guest packets it moved without the OSA).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VswCounters {
    /// Bytes and packets sent to the LAN through the uplink (payload).
    pub tx_bytes: u64,
    pub tx_packets: u64,
    /// Bytes and packets received from the LAN through the uplink.
    pub rx_bytes: u64,
    pub rx_packets: u64,
    /// Packets discarded outbound and inbound (none are: the model's queues
    /// are unbounded; the fields are written as CP's).
    pub tx_discards: u64,
    pub rx_discards: u64,
    /// SIGA-w CP issued to the OSA (one per outbound burst).
    pub siga_w: u64,
    /// PCI interrupts received from the OSA and processed (one per inbound
    /// burst).
    pub pci_received: u64,
    pub pci_processed: u64,
    /// Packets between two of this partition's guests (no OSA).
    pub local_packets: u64,
    /// Time the uplink port spent transmitting, out and in (ns).
    pub busy_out_ns: u64,
    pub busy_in_ns: u64,
}

/// A VSWITCH as the monitor sees it.
#[derive(Clone, Debug)]
pub struct VswSample {
    pub name: String,
    pub controller: String,
    /// The uplink's data device (its first device + 2), CHPID and port;
    /// `None` without an uplink.
    pub uplink: Option<(u16, u8, u8)>,
    pub queue_storage: u8,
    pub ip_timeout_min: u16,
    pub c: VswCounters,
}

struct Port {
    /// Transmission time per byte on the wire (ns).
    ns_per_byte: f64,
    /// When the port is next free to transmit, out and in.
    out_free: Ns,
    in_free: Ns,
}

struct Vsw {
    name: String,
    controller: String,
    uplink: Option<(u16, u8, u8)>,
    /// Index in `ports` of its uplink.
    port: Option<usize>,
    queue_storage: u8,
    ip_timeout_min: u16,
    mtu: u64,
    c: VswCounters,
}

/// What a send through a VSWITCH costs and takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VsSend {
    /// CP time for the guest (the simulated SIGA of its NIC).
    pub cp: Ns,
    /// CP time of the VSWITCH's forwarding, charged to the system.
    pub sys: Ns,
    /// From now until the last byte has left the uplink port (queueing
    /// behind earlier traffic, then transmission); 0 guest to guest.
    pub wire: Ns,
}

/// Bytes a packet carries on the wire besides its payload: Ethernet header
/// and FCS (18), preamble and inter-frame gap (20) \[K\].
const WIRE_OVERHEAD: u64 = 38;

struct Dev {
    def: DevDef,
    active: bool,
    /// Index in `chpids` (HiperSockets) or `None` (OSA).
    chp: Option<usize>,
    c: QdioCounters,
}

pub struct Net {
    chpids: Vec<Chpid>,
    devs: Vec<Dev>,
    /// Device of each guest (the first it owns), `u32::MAX` for none.
    by_guest: Vec<u32>,
    receive_ns: Ns,
    siga_ns: Ns,
    osa_latency: Ns,
    vswitch_ns: Ns,
    events: Vec<(DevEvent, u32, Ns)>,
    vsws: Vec<Vsw>,
    ports: Vec<Port>,
}

/// The CEC's view the network needs: each partition entry's availability,
/// its logical processors, and the slice.
#[derive(Clone, Copy)]
pub struct Avail<'a> {
    pub cec: Option<&'a crate::model::lpar::Cec>,
}

impl Avail<'_> {
    /// Delivered fraction of partition entry `k` (1 without a CEC).
    fn f(&self, k: Option<usize>) -> f64 {
        match (self.cec, k) {
            (Some(c), Some(k)) => c.availability(k),
            _ => 1.0,
        }
    }
    fn nlog(&self, k: Option<usize>) -> usize {
        match (self.cec, k) {
            (Some(c), Some(k)) => c.logical(k),
            _ => 1,
        }
    }
    fn slice(&self) -> Ns {
        self.cec.map_or(0, |c| c.interval())
    }
}

/// The wait of a logical processor given a fraction `f` of its ready time
/// in slices of `slice` ns until it next runs: 0 with probability `f`, else a
/// uniform part of a gap of `slice (1 - f) / f`.
pub fn gap_wait(f: f64, slice: Ns, rng: &mut Rng) -> Ns {
    if f >= 1.0 || slice == 0 {
        return 0;
    }
    let f = f.max(1e-3);
    if rng.f64() < f {
        return 0;
    }
    (slice as f64 * (1.0 - f) / f * rng.f64()) as Ns
}

impl Net {
    /// The network of `hs` CHPIDs and the guests' devices `devs`, for
    /// `guests` guests.
    pub fn new(
        p: &Params,
        hs: &[HiperSockets],
        osa: &[Osa],
        vsw: &[Vswitch],
        devs: Vec<DevDef>,
        guests: usize,
    ) -> Net {
        // One port entry per (OSA CHPID, port) some uplink uses: VSWITCHes
        // on the same port share its line.
        let mut port_ids: Vec<(u8, u8)> = Vec::new();
        let mut ports = Vec::new();
        let vsws = vsw
            .iter()
            .map(|v| {
                let (uplink, port) = match &v.uplink {
                    Some(u) => {
                        let chp = parse_chpid(&u.chpid).expect("validated");
                        let rdev = parse_rdev(&u.rdev).expect("validated");
                        let k = match port_ids.iter().position(|&x| x == (chp, u.port)) {
                            Some(k) => k,
                            None => {
                                let o = osa
                                    .iter()
                                    .find(|o| parse_chpid(&o.chpid).ok() == Some(chp))
                                    .expect("validated");
                                port_ids.push((chp, u.port));
                                ports.push(Port {
                                    ns_per_byte: 8.0 / o.gbps,
                                    out_free: 0,
                                    in_free: 0,
                                });
                                ports.len() - 1
                            }
                        };
                        (Some((rdev + 2, chp, u.port)), Some(k))
                    }
                    None => (None, None),
                };
                Vsw {
                    name: v.name.to_ascii_uppercase(),
                    controller: v.controller.to_ascii_uppercase(),
                    uplink,
                    port,
                    queue_storage: v.queue_storage,
                    ip_timeout_min: v.ip_timeout,
                    mtu: v.mtu as u64,
                    c: VswCounters::default(),
                }
            })
            .collect();
        let chpids: Vec<Chpid> = hs
            .iter()
            .map(|h| Chpid {
                id: parse_chpid(&h.chpid).expect("validated"),
                mfs: h.mfs.0 as u32,
                ns_per_byte: 1.0 / h.copy_gb_s,
            })
            .collect();
        let mut by_guest = vec![u32::MAX; guests];
        let devs = devs
            .into_iter()
            .enumerate()
            .map(|(i, def)| {
                let g = def.guest as usize;
                if by_guest[g] == u32::MAX {
                    by_guest[g] = i as u32;
                }
                Dev {
                    chp: match def.via {
                        Via::HiperSockets => chpids.iter().position(|c| c.id == def.chpid),
                        Via::Osa | Via::Vswitch => None,
                    },
                    def,
                    active: false,
                    c: QdioCounters::default(),
                }
            })
            .collect();
        Net {
            chpids,
            devs,
            by_guest,
            receive_ns: us_to_ns(p.receive_us),
            siga_ns: us_to_ns(p.siga_us),
            osa_latency: us_to_ns(p.osa_latency_us),
            vswitch_ns: us_to_ns(p.vswitch_us),
            events: Vec::new(),
            vsws,
            ports,
        }
    }

    /// Any real QDIO device at all (the monitor writes QDIO records only
    /// then; a virtual NIC is not one).
    pub fn any(&self) -> bool {
        self.devs.iter().any(|d| d.def.via != Via::Vswitch)
    }

    /// Any VSWITCH with an uplink (the monitor writes MRIODVSW only then).
    pub fn any_uplink(&self) -> bool {
        self.vsws.iter().any(|v| v.uplink.is_some())
    }

    /// Device `dev` is a virtual NIC on a VSWITCH.
    pub fn is_vswitch(&self, dev: u32) -> bool {
        self.devs[dev as usize].def.vsw.is_some()
    }

    /// Packets a message of `bytes` takes on device `dev`'s VSWITCH.
    fn packets(&self, d: &Dev, bytes: u64) -> u64 {
        let mtu = d.def.vsw.map_or(1492, |v| self.vsws[v].mtu);
        bytes.div_ceil(mtu).max(1)
    }

    /// Device `dev` (a virtual NIC) sends `bytes` at `now`: its NIC's SIGA,
    /// one per message (CP time of the guest), the VSWITCH's forwarding per packet
    /// (system), and, to another partition, the packets queued on the uplink
    /// port behind what it is still transmitting, then sent at its line
    /// speed.
    pub fn vswitch_send(&mut self, dev: u32, bytes: u64, now: Ns) -> VsSend {
        let d = &self.devs[dev as usize];
        let pk = self.packets(d, bytes);
        let v = d.def.vsw.expect("a virtual NIC");
        let external = d.def.external;
        let d = &mut self.devs[dev as usize];
        // One SIGA for the message: the guest fills its output buffers with
        // the packets and signals once.
        d.c.siga_w += 1;
        d.c.frames_out += pk;
        d.c.bytes_out += bytes;
        let mut out = VsSend {
            cp: self.siga_ns,
            sys: self.vswitch_ns * pk,
            wire: 0,
        };
        let w = &mut self.vsws[v];
        if external {
            let p = &mut self.ports[w.port.expect("validated: an uplink")];
            let t = ((bytes + pk * WIRE_OVERHEAD) as f64 * p.ns_per_byte) as Ns;
            let start = p.out_free.max(now);
            p.out_free = start + t;
            out.wire = p.out_free - now;
            w.c.busy_out_ns += t;
            w.c.tx_bytes += bytes;
            w.c.tx_packets += pk;
            w.c.siga_w += 1;
        } else {
            w.c.local_packets += pk;
        }
        out
    }

    /// The peer's turn after a request of virtual NIC `dev` whose last byte
    /// left at `sent` (absolute): to another partition, the request's
    /// interrupt waits for the first of its logical processors to run, the
    /// adapters' latency both ways, and the reply of `reply` bytes queues on
    /// the uplink port's inbound side behind earlier traffic; guest to
    /// guest, the server's wait for a z/VM processor and its work only.
    /// Returns when the reply is in the guest's buffers (absolute).
    pub fn vswitch_turn(
        &mut self,
        dev: u32,
        cpu: Ns,
        reply: u64,
        sent: Ns,
        av: Avail,
        rng: &mut Rng,
    ) -> Ns {
        let d = &self.devs[dev as usize];
        let f = av.f(d.def.peer).max(1e-3);
        let work = (cpu as f64 / f) as Ns;
        let mut w = Ns::MAX;
        for _ in 0..av.nlog(d.def.peer).max(1) {
            w = w.min(gap_wait(f, av.slice(), rng));
            if w == 0 {
                break;
            }
        }
        if !d.def.external {
            return sent + w + work;
        }
        let pk = self.packets(d, reply);
        let v = &mut self.vsws[d.def.vsw.expect("a virtual NIC")];
        let p = &mut self.ports[v.port.expect("validated: an uplink")];
        let t = ((reply + pk * WIRE_OVERHEAD) as f64 * p.ns_per_byte) as Ns;
        let arrive = sent + w + work + 2 * self.osa_latency;
        let start = p.in_free.max(arrive);
        p.in_free = start + t;
        v.c.busy_in_ns += t;
        p.in_free
    }

    /// Virtual NIC `dev` receives `bytes`: the CP time of its inbound
    /// packets for the guest and the VSWITCH's forwarding for the system;
    /// from the uplink, one PCI interrupt for the burst.
    pub fn vswitch_receive(&mut self, dev: u32, bytes: u64) -> (Ns, Ns) {
        let d = &self.devs[dev as usize];
        let pk = self.packets(d, bytes);
        let (v, external) = (d.def.vsw.expect("a virtual NIC"), d.def.external);
        let d = &mut self.devs[dev as usize];
        d.c.siga_r += 1;
        d.c.frames_in += pk;
        d.c.bytes_in += bytes;
        let w = &mut self.vsws[v];
        if external {
            w.c.rx_bytes += bytes;
            w.c.rx_packets += pk;
            w.c.pci_received += 1;
            w.c.pci_processed += 1;
        } else {
            w.c.local_packets += pk;
        }
        (self.receive_ns * pk, self.vswitch_ns * pk)
    }

    /// Every VSWITCH, in definition order.
    pub fn vswitches(&self) -> impl Iterator<Item = VswSample> + '_ {
        self.vsws.iter().map(|v| VswSample {
            name: v.name.clone(),
            controller: v.controller.clone(),
            uplink: v.uplink,
            queue_storage: v.queue_storage,
            ip_timeout_min: v.ip_timeout_min,
            c: v.c,
        })
    }

    /// Guest `g`'s device.
    pub fn device_of(&self, g: u32) -> Option<u32> {
        self.by_guest
            .get(g as usize)
            .copied()
            .filter(|&d| d != u32::MAX)
    }

    /// Frames a message of `bytes` takes (HiperSockets: the CHPID's frame
    /// size; OSA: 1492-byte Ethernet frames' worth, at least one).
    fn frames(&self, d: &Dev, bytes: u64) -> u64 {
        let unit = match d.chp {
            Some(k) => self.chpids[k].mfs as u64,
            None => 1492,
        };
        bytes.div_ceil(unit).max(1)
    }

    /// Device `dev` sends `bytes` to its peer: the CPU time the sender is
    /// held (HiperSockets: per frame the rendezvous with the peer's
    /// processor and the copy; OSA: the SIGA).
    pub fn send(&mut self, dev: u32, bytes: u64, av: Avail, rng: &mut Rng) -> Ns {
        let frames = self.frames(&self.devs[dev as usize], bytes);
        let d = &mut self.devs[dev as usize];
        d.c.siga_w += frames;
        d.c.frames_out += frames;
        d.c.bytes_out += bytes;
        match d.chp {
            Some(k) => {
                let f = av.f(d.def.peer);
                let mut wait = 0;
                for _ in 0..frames {
                    let w = gap_wait(f, av.slice(), rng);
                    if w > 0 {
                        d.c.waits += 1;
                    }
                    wait += w;
                }
                d.c.wait_ns += wait;
                wait + (bytes as f64 * self.chpids[k].ns_per_byte) as Ns
            }
            None => self.siga_ns * frames,
        }
    }

    /// The peer's turn after a request of device `dev`: the wall time from
    /// the send to the reply of `reply` bytes being in the guest's buffers.
    /// `cpu` is the peer's CPU time for the request; `zvm` the z/VM
    /// partition's entry (the reply's receiver).
    pub fn peer_turn(
        &self,
        dev: u32,
        cpu: Ns,
        reply: u64,
        zvm: Option<usize>,
        av: Avail,
        rng: &mut Rng,
    ) -> Ns {
        let d = &self.devs[dev as usize];
        let f = av.f(d.def.peer).max(1e-3);
        let work = (cpu as f64 / f) as Ns;
        match d.chp {
            // The request's rendezvous left the peer's processor running;
            // its reply meets a z/VM processor.
            Some(k) => {
                let frames = self.frames(d, reply);
                let mut t = work + (reply as f64 * self.chpids[k].ns_per_byte) as Ns;
                for _ in 0..frames {
                    t += gap_wait(av.f(zvm), av.slice(), rng);
                }
                t
            }
            // The request's interrupt waits for the first of the peer's
            // logical processors to run; the adapter's latency both ways.
            None => {
                let mut w = Ns::MAX;
                for _ in 0..av.nlog(d.def.peer).max(1) {
                    w = w.min(gap_wait(f, av.slice(), rng));
                    if w == 0 {
                        break;
                    }
                }
                w + work + 2 * self.osa_latency
            }
        }
    }

    /// Device `dev` receives `bytes`: the CP time of its inbound frames.
    pub fn receive(&mut self, dev: u32, bytes: u64) -> Ns {
        let frames = self.frames(&self.devs[dev as usize], bytes);
        let d = &mut self.devs[dev as usize];
        d.c.siga_r += 1;
        d.c.frames_in += frames;
        d.c.bytes_in += bytes;
        self.receive_ns * frames
    }

    /// A transaction of device `dev` completed in `ns`.
    pub fn done(&mut self, dev: u32, ns: Ns) {
        let c = &mut self.devs[dev as usize].c;
        c.transactions += 1;
        c.resp_ns += ns;
        c.resp_max_ns = c.resp_max_ns.max(ns);
    }

    /// Device `dev`'s queues are established and active (its guest's network
    /// workload starts) at `now`. (A virtual NIC writes no QDIO event.)
    pub fn activate(&mut self, dev: u32, now: Ns) {
        let d = &mut self.devs[dev as usize];
        if !d.active {
            d.active = true;
            if d.def.vsw.is_none() {
                self.events.push((DevEvent::Activate, dev, now));
            }
        }
    }

    /// Device `dev`'s queues end (its guest stops or logs off) at `now`.
    pub fn deactivate(&mut self, dev: u32, now: Ns) {
        let d = &mut self.devs[dev as usize];
        if d.active {
            d.active = false;
            if d.def.vsw.is_none() {
                self.events.push((DevEvent::Deactivate, dev, now));
            }
        }
    }

    /// Activations and deactivations since the last call, oldest first.
    pub fn take_events(&mut self) -> Vec<(DevEvent, u32, Ns)> {
        std::mem::take(&mut self.events)
    }

    /// Device `dev`.
    pub fn device(&self, dev: u32) -> DevSample {
        let d = &self.devs[dev as usize];
        DevSample {
            devno: d.def.devno,
            guest: d.def.guest,
            format: d.def.via.format(),
            chpid: d.def.chpid,
            active: d.active,
            c: d.c,
        }
    }

    /// Every real QDIO device (not the virtual NICs), in definition order.
    pub fn devices(&self) -> impl Iterator<Item = DevSample> + '_ {
        (0..self.devs.len() as u32)
            .filter(|&d| self.devs[d as usize].def.vsw.is_none())
            .map(|d| self.device(d))
    }

    /// Invariants: a device's counters never decrease below what they
    /// imply (each transaction one frame out at least; the longest response
    /// no more than their sum).
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        for d in &self.devs {
            let c = &d.c;
            assert!(c.transactions <= c.frames_out, "{:04X}: {c:?}", d.def.devno);
            assert!(c.resp_max_ns <= c.resp_ns, "{:04X}: {c:?}", d.def.devno);
            assert!(c.waits <= c.siga_w, "{:04X}: {c:?}", d.def.devno);
        }
        for v in &self.vsws {
            let c = &v.c;
            assert!(c.siga_w <= c.tx_packets, "{}: {c:?}", v.name);
            assert!(c.pci_received <= c.rx_packets, "{}: {c:?}", v.name);
            assert!(
                v.uplink.is_some() || c.tx_packets + c.rx_packets == 0,
                "{}: {c:?}",
                v.name
            );
        }
    }
}
