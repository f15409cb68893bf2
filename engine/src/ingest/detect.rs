//! Photo or not, from the pixels (imageType `detect`).
//!
//! The method: a photograph's luminance histogram is smooth (sensor noise, lighting and
//! texture spread every tone over its neighbours), while line art, logos, charts and text are
//! drawn in a few flat tones, so their histogram is a handful of isolated spikes. We measure
//! the share of pixels that sit in spikes: levels holding more than four times as many pixels
//! as any level 3 to 6 steps away on either side (the gap skips the neighbours that JPEG
//! noise and anti-aliasing smear a flat tone into). A photo puts almost nothing there; flat
//! art puts most of its pixels there. It runs on the preview rendition (at most 1024 px),
//! where resampling has already averaged away noise that is not in the picture.

/// Above this share of pixels in histogram spikes, an image is not a photo.
const SPIKE_SHARE_LIMIT: f64 = 0.25;

/// Whether RGB pixels (3 bytes each) look like a photograph.
pub fn looks_like_photo(rgb: &[u8]) -> bool {
    spike_share(rgb) < SPIKE_SHARE_LIMIT
}

/// The share of pixels (0-1) whose luminance level is an isolated spike of the histogram.
pub fn spike_share(rgb: &[u8]) -> f64 {
    let mut histogram = [0u64; 256];
    for pixel in rgb.chunks_exact(3) {
        // Rec. 601 luma in integers.
        let luma =
            (299 * u32::from(pixel[0]) + 587 * u32::from(pixel[1]) + 114 * u32::from(pixel[2]))
                / 1000;
        histogram[luma as usize] += 1;
    }
    let total: u64 = histogram.iter().sum();
    if total == 0 {
        return 0.0;
    }
    let spikes: u64 = (0..256usize)
        .filter(|&level| {
            let around = (3..=6)
                .flat_map(|d| [level.checked_sub(d), Some(level + d).filter(|&l| l < 256)])
                .flatten()
                .map(|l| histogram[l])
                .max()
                .unwrap_or(0);
            histogram[level] > 4 * around
        })
        .map(|level| histogram[level])
        .sum();
    spikes as f64 / total as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_art_is_spiky_and_noise_is_not() {
        // Two flat tones with an anti-aliased edge between them.
        let mut art = Vec::new();
        for i in 0..10_000u32 {
            let v = match i % 100 {
                0..=59 => 255,
                60 => 128,
                _ => 20,
            };
            art.extend([v, v, v]);
        }
        assert!(spike_share(&art) > 0.9);
        assert!(!looks_like_photo(&art));
        // A smooth spread of tones, as in a photo.
        let photo: Vec<u8> = (0..30_000u32)
            .map(|i| ((i * 7919) % 200 + 20) as u8)
            .collect();
        assert!(spike_share(&photo) < 0.05);
        assert!(looks_like_photo(&photo));
    }
}
