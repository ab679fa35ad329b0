//! Deterministic random streams: one independent xoshiro256++ stream per entity,
//! derived from (scenario seed, entity kind, entity number) with SplitMix64, so
//! adding a guest never changes the random numbers another guest sees.

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Entity kinds, so that streams of different kinds never coincide.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Stream {
    Vcpu = 1,
    Device = 2,
    System = 3,
}

impl Rng {
    /// A stand-in that holds a generator's place while the real one is moved
    /// out (all-zero state: never to be drawn from).
    pub const PLACEHOLDER: Rng = Rng { s: [0; 4] };

    pub fn new(seed: u64, kind: Stream, id: u64) -> Rng {
        let mut x = seed
            ^ (kind as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)
            ^ id.wrapping_mul(0x8CB9_2BA7_2F3D_8DD7);
        let s = [
            splitmix(&mut x),
            splitmix(&mut x),
            splitmix(&mut x),
            splitmix(&mut x),
        ];
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let r = self.s[0]
            .wrapping_add(self.s[3])
            .rotate_left(23)
            .wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        r
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n) (n > 0), multiply-shift (no modulo bias worth
    /// noticing for n far below 2^64).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponential with the given mean.
    pub fn exp(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.f64()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_deterministic_and_independent() {
        let mut a = Rng::new(1, Stream::Vcpu, 0);
        let mut b = Rng::new(1, Stream::Vcpu, 0);
        let mut c = Rng::new(1, Stream::Vcpu, 1);
        let xa: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn uniform_mean() {
        let mut r = Rng::new(7, Stream::System, 0);
        let n = 100_000;
        let m: f64 = (0..n).map(|_| r.f64()).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.01, "{m}");
        assert!((0..1000).all(|_| r.below(10) < 10));
    }
}
