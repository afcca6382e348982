//! Hand-worked runs: every sample below is read off the times by hand.

use super::*;

/// A chunk of 20 and start stamps 2 apart, in the small units of these runs.
const RES: Resolution = Resolution {
    chunk: 20,
    start: 2,
};

fn seg(cpu: usize, (task, job): JobKey, start: u64, end: u64) -> SegmentRecord {
    SegmentRecord {
        cpu,
        task,
        job,
        start,
        end,
        worker_time: None,
    }
}

/// A job released at `release` that started at `start` on `cpu`, completed at `completion`.
fn job(
    (task, job): JobKey,
    release: u64,
    (start, cpu): (u64, usize),
    completion: Option<u64>,
) -> JobRecord {
    JobRecord {
        task,
        job,
        release,
        deadline: release + 10_000,
        requested: None,
        start: Some(start),
        completion,
        discarded: None,
        cpu: Some(cpu),
        release_core: None,
    }
}

#[test]
fn a_job_on_a_free_cpu_gives_its_release_latency_only() {
    let jobs = [job((0, 0), 1000, (1020, 0), Some(2021))];
    let segments = [seg(0, (0, 0), 1020, 2020)];
    let samples = kernel_samples(&jobs, &segments, RES);
    let expected = KernelSamples {
        release_latency: vec![20],
        ..KernelSamples::default()
    };
    assert_eq!(samples, expected);
}

/// CPU 1: an earlier job runs [20, 60), the low job [100, 300), the high one is released at
/// 300 and runs [305, 325), the low one is back at 340 (stamped so: its time off the CPU is
/// exactly 40).
#[test]
fn a_preemption_by_one_whole_job_gives_its_round_trip() {
    let (early, low, high) = ((2, 0), (1, 0), (0, 0));
    let jobs = [
        job(early, 15, (20, 1), Some(61)),
        job(low, 90, (100, 1), Some(501)),
        job(high, 300, (305, 1), Some(326)),
    ];
    let segments = [
        seg(1, early, 20, 60),
        seg(1, low, 100, 300),
        seg(1, high, 305, 325),
        seg(1, low, 340, 500),
    ];
    let samples = kernel_samples(&jobs, &segments, RES);
    assert_eq!(samples.preemption, vec![40 - 20]);
    // The early and the low job started on a free CPU, 5 and 10 after their releases; the
    // high one did not: the low job ran there, its segment's end a chunk's guess.
    assert_eq!(samples.release_latency, vec![5, 10]);
    assert!(samples.hand_over.is_empty() && samples.moved_hand_over.is_empty());
}

/// The resumed segment is stamped up to a chunk before its true start, so the job that ran in
/// between may end up to a chunk after that stamp; a job ending later is not the gap's.
#[test]
fn the_job_in_between_may_end_up_to_a_chunk_after_the_resumed_stamp() {
    let (low, high) = ((1, 0), (0, 0));
    let run = |resumed: u64| {
        let jobs = [
            job(low, 0, (0, 0), Some(1000)),
            job(high, 120, (125, 0), Some(151)),
        ];
        let segments = [
            seg(0, low, 0, 100),
            seg(0, high, 125, 150),
            seg(0, low, resumed, 1000),
        ];
        kernel_samples(&jobs, &segments, RES).preemption
    };
    // Off the CPU 30, of which the high job ran 25; it ends 20 after the resumed stamp.
    assert_eq!(run(130), vec![5]);
    // Off 29: the high job would end 21 after the stamp, past a chunk.
    assert_eq!(run(129), Vec::<u64>::new());
}

#[test]
fn a_gap_with_two_jobs_a_job_not_whole_or_a_move_gives_no_round_trip() {
    let (low, a, b) = ((2, 0), (0, 0), (1, 0));
    let jobs = [
        job(low, 0, (0, 0), Some(1000)),
        job(a, 100, (105, 0), Some(121)),
        job(b, 100, (125, 0), Some(141)),
    ];
    let two = [
        seg(0, low, 0, 100),
        seg(0, a, 105, 120),
        seg(0, b, 125, 140),
        seg(0, low, 150, 1000),
    ];
    assert!(kernel_samples(&jobs, &two, RES).preemption.is_empty());
    // `a` alone in the gap, its segment there begun with its first instruction, but it ran on
    // CPU 1 first, for a moment: not its only segment.
    let split_jobs = [
        job(low, 0, (0, 0), Some(1000)),
        job(a, 90, (95, 1), Some(121)),
    ];
    let split = [
        seg(0, low, 0, 90),
        seg(1, a, 95, 96),
        seg(0, a, 97, 120),
        seg(0, low, 130, 1000),
    ];
    assert!(kernel_samples(&split_jobs, &split, RES)
        .preemption
        .is_empty());
    // `a`'s one segment begins 25 after its first instruction: preempted before its first
    // sample, it lost its first segment, and the start of the one left is no stamp.
    let late_jobs = [
        job(low, 0, (0, 0), Some(1000)),
        job(a, 100, (105, 0), Some(146)),
    ];
    let late = [
        seg(0, low, 0, 100),
        seg(0, a, 130, 145),
        seg(0, low, 160, 1000),
    ];
    assert!(kernel_samples(&late_jobs, &late, RES).preemption.is_empty());
    // Another thread of the machine held the CPU [100, 130); the low job then ends at 135 and
    // `a` runs [136, 145), within a chunk of the resumed stamp but after the resumption.
    let after_jobs = [
        job(low, 0, (0, 0), Some(136)),
        job(a, 136, (136, 0), Some(146)),
    ];
    let after = [
        seg(0, low, 0, 100),
        seg(0, low, 130, 135),
        seg(0, a, 136, 145),
    ];
    assert!(kernel_samples(&after_jobs, &after, RES)
        .preemption
        .is_empty());
    // The low job resumes on CPU 1: no round trip on either CPU.
    let moved_jobs = [
        job(low, 0, (100, 0), Some(401)),
        job(a, 200, (210, 0), Some(231)),
    ];
    let moved = [
        seg(0, low, 100, 200),
        seg(0, a, 210, 230),
        seg(1, low, 260, 400),
    ];
    assert!(kernel_samples(&moved_jobs, &moved, RES)
        .preemption
        .is_empty());
}

/// Task 1's jobs wait for task 0's on CPU 0: job 1 of task 1 (its last job ran on CPU 0) starts
/// 7 after task 0's job there ends; job 3 (its last job ran on CPU 1) 12 after. Task 2's job 1,
/// released before its job 0 completed, follows it on CPU 0 without a switch: no hand-over.
#[test]
fn a_job_that_waited_for_its_cpu_gives_a_hand_over_split_by_where_its_thread_last_ran() {
    let (t0a, t0b) = ((0, 0), (0, 1));
    let (t1a, t1b, t1c) = ((1, 0), (1, 1), (1, 2));
    let jobs = [
        job(t1a, 0, (5, 0), Some(51)),
        job(t0a, 100, (103, 0), Some(201)),
        job(t1b, 150, (207, 0), Some(301)),
        job(t1c, 400, (405, 1), Some(451)),
        job(t0b, 500, (503, 0), Some(601)),
    ];
    let mut segments = vec![
        seg(0, t1a, 5, 50),
        seg(0, t0a, 103, 200),
        seg(0, t1b, 207, 300),
        seg(1, t1c, 405, 450),
        seg(0, t0b, 503, 600),
    ];
    let later = [
        job((1, 3), 550, (612, 0), Some(700)),
        job((2, 0), 800, (803, 0), Some(901)),
        job((2, 1), 850, (901, 0), Some(951)),
    ];
    let jobs: Vec<_> = jobs.into_iter().chain(later).collect();
    segments.push(seg(0, (1, 3), 612, 699));
    segments.push(seg(0, (2, 0), 803, 900));
    segments.push(seg(0, (2, 1), 901, 950));
    let samples = kernel_samples(&jobs, &segments, RES);
    assert_eq!(samples.hand_over, vec![7]);
    assert_eq!(samples.moved_hand_over, vec![12]);
    assert_eq!(samples.release_latency, vec![5, 3, 5, 3, 3]);
}

#[test]
fn a_start_after_a_job_that_did_not_end_there_gives_no_sample() {
    // The low job is preempted at 100 (its segment's end, a chunk's guess) by the high one.
    let (low, high) = ((1, 0), (0, 0));
    let jobs = [
        job(low, 0, (0, 0), Some(1000)),
        job(high, 90, (110, 0), Some(131)),
    ];
    let segments = [
        seg(0, low, 0, 100),
        seg(0, high, 110, 130),
        seg(0, low, 140, 1000),
    ];
    let samples = kernel_samples(&jobs, &segments, RES);
    assert_eq!(samples.release_latency, vec![0]);
    assert!(samples.hand_over.is_empty() && samples.moved_hand_over.is_empty());
    assert_eq!(samples.preemption, vec![40 - 20]);
}
