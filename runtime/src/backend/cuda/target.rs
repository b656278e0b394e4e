//! Which PTX a GPU can load: the chip a program was compiled for against the device's
//! compute capability, and its PTX ISA version against what the driver's JIT compiler
//! reads. Checked before a module is loaded, so a mismatch is a sentence rather than
//! `CUDA_ERROR_NO_BINARY_FOR_GPU` or `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`.

/// Chips LLVM 22's NVPTX back end compiles for: name, compute capability, whether the
/// PTX is architecture-specific (`a`: runs on that exact capability only), and the lowest
/// PTX ISA version it needs (the table of `shardc_compiler::lower::gpu::CHIPS`, which a
/// test of the facade checks this one against).
pub const CHIPS: &[(&str, (u32, u32), bool, u32)] = &[
    ("sm_70", (7, 0), false, 60),
    ("sm_72", (7, 2), false, 61),
    ("sm_75", (7, 5), false, 63),
    ("sm_80", (8, 0), false, 70),
    ("sm_86", (8, 6), false, 71),
    ("sm_87", (8, 7), false, 74),
    ("sm_89", (8, 9), false, 78),
    ("sm_90", (9, 0), false, 78),
    ("sm_90a", (9, 0), true, 80),
    ("sm_100", (10, 0), false, 86),
    ("sm_100a", (10, 0), true, 86),
    ("sm_101", (10, 1), false, 86),
    ("sm_120", (12, 0), false, 87),
    ("sm_120a", (12, 0), true, 87),
];

/// The newest PTX ISA version a driver of this CUDA version (`cuDriverGetVersion`: 12080
/// for 12.8) JIT-compiles: CUDA 11.x reads 7.x, 12.0-12.5 read 8.0-8.5, 12.6 8.5, 12.7
/// 8.6, 12.8 8.7, 12.9 8.8, 13.0 9.0 (NVIDIA's PTX ISA release notes).
pub fn driver_max_ptx(driver_version: i32) -> u32 {
    let major = (driver_version / 1000).max(0) as u32;
    let minor = ((driver_version % 1000) / 10).max(0) as u32;
    match (major, minor) {
        (0..=10, _) => 65,
        (11, m) => 70 + m.min(8),
        (12, m @ 0..=5) => 80 + m,
        (12, 6) => 85,
        (12, 7) => 86,
        (12, 8) => 87,
        (12, _) => 88,
        (13, m) => 90 + m.min(9),
        _ => 99,
    }
}

/// The chip (and its lowest PTX ISA version) to compile for a device of compute
/// capability `cc`: the chip of that capability, else the newest one below it (PTX runs
/// on later GPUs: the driver compiles it for them). `None` below sm_70.
pub fn chip_for(cc: (u32, u32)) -> Option<(&'static str, u32)> {
    CHIPS
        .iter()
        .filter(|(_, c, arch, _)| !arch && *c <= cc)
        .max_by_key(|(_, c, _, _)| *c)
        .map(|&(name, _, _, ptx)| (name, ptx))
}

/// Checks that PTX for `chip` with ISA `ptx` (80 = 8.0) loads on a device of compute
/// capability `cc` whose driver is CUDA `driver_version`.
pub fn check(chip: &str, ptx: u32, cc: (u32, u32), driver_version: i32) -> Result<(), String> {
    let dot = |v: u32| format!("{}.{}", v / 10, v % 10);
    let Some(&(_, need, arch, _)) = CHIPS.iter().find(|(n, ..)| *n == chip) else {
        return Err(format!(
            "the PTX was compiled for {chip}, which the cuda backend does not know"
        ));
    };
    let fix = match chip_for(cc) {
        Some((c, _)) => format!("compile for {c} (CudaMesh::target gives the device's)"),
        None => "the cuda backend needs compute capability 7.0 or later".to_string(),
    };
    if arch && need != cc || need > cc {
        return Err(format!(
            "the PTX was compiled for {chip} (compute capability {}.{}{}), but the GPU has compute capability {}.{}; {fix}",
            need.0,
            need.1,
            if arch { " exactly" } else { " or later" },
            cc.0,
            cc.1
        ));
    }
    let max = driver_max_ptx(driver_version);
    if ptx > max {
        return Err(format!(
            "the PTX has ISA version {}, but the driver (CUDA {}.{}) reads PTX up to {}; compile with PTX ISA {} or update the NVIDIA driver",
            dot(ptx),
            driver_version / 1000,
            (driver_version % 1000) / 10,
            dot(max),
            dot(max)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chips_for_devices() {
        assert_eq!(chip_for((9, 0)), Some(("sm_90", 78))); // H100, H200
        assert_eq!(chip_for((8, 0)), Some(("sm_80", 70))); // A100
        assert_eq!(chip_for((8, 9)), Some(("sm_89", 78))); // L4, L40
        assert_eq!(chip_for((8, 8)), Some(("sm_87", 74)));
        assert_eq!(chip_for((10, 3)), Some(("sm_101", 86)));
        assert_eq!(chip_for((6, 1)), None);
    }

    #[test]
    fn ptx_versions_of_drivers() {
        assert_eq!(driver_max_ptx(11080), 78);
        assert_eq!(driver_max_ptx(12000), 80);
        assert_eq!(driver_max_ptx(12040), 84);
        assert_eq!(driver_max_ptx(12060), 85);
        assert_eq!(driver_max_ptx(12080), 87);
        assert_eq!(driver_max_ptx(12090), 88);
        assert_eq!(driver_max_ptx(13000), 90);
    }

    #[test]
    fn targets_are_checked_against_the_device() {
        assert_eq!(check("sm_90", 80, (9, 0), 12080), Ok(()));
        assert_eq!(check("sm_80", 70, (9, 0), 12000), Ok(())); // PTX runs on later GPUs
        assert_eq!(
            check("sm_90", 80, (8, 0), 12080).unwrap_err(),
            "the PTX was compiled for sm_90 (compute capability 9.0 or later), but the GPU has compute capability 8.0; compile for sm_80 (CudaMesh::target gives the device's)"
        );
        assert!(
            check("sm_90a", 80, (10, 0), 12080)
                .unwrap_err()
                .contains("9.0 exactly")
        );
        assert_eq!(
            check("sm_90", 87, (9, 0), 12040).unwrap_err(),
            "the PTX has ISA version 8.7, but the driver (CUDA 12.4) reads PTX up to 8.4; compile with PTX ISA 8.4 or update the NVIDIA driver"
        );
        assert!(
            check("sm_61", 60, (6, 1), 12000)
                .unwrap_err()
                .contains("does not know")
        );
    }
}
