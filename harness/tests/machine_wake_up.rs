//! The machine record's wake-up figures: a record written before they existed still loads,
//! and a record with them renders them in its one-phrase summary.

use harness::machine::Machine;
use harness::wake_up::WakeUp;

#[test]
fn a_record_without_wake_up_figures_still_loads() {
    let mut old = serde_json::to_value(Machine::example()).unwrap();
    old.as_object_mut().unwrap().remove("wake_up").unwrap();
    let machine: Machine = serde_json::from_value(old).unwrap();
    assert_eq!(machine, Machine::example());
    assert_eq!(machine.wake_up, None);
    assert!(!machine.summary().contains("wake-up"));
}

#[test]
fn the_summary_and_the_cpu_line_name_the_wake_up_beside_the_cpu() {
    let mut machine = Machine::example();
    machine.wake_up = Some(Box::new(WakeUp::example()));
    let phrase = "wake-up: 17.3 µs round trip and 9.1 µs CPU asleep, 2.1 µs and 4.2 µs \
                  busy-polling, cpuidle haltpoll/haltpoll";
    assert_eq!(
        machine.summary(),
        format!(
            "Example CPU @ 2.00GHz, 2 logical cores, 23.5 GiB, kernel 6.1.0, rustc 1.95.0, \
             steal 3.2% of CPU time during the run, {phrase}"
        )
    );
    assert_eq!(
        machine.cpu_and_wake_up(),
        format!("Example CPU @ 2.00GHz, {phrase}")
    );
    let json = serde_json::to_string(&machine).unwrap();
    assert_eq!(serde_json::from_str::<Machine>(&json).unwrap(), machine);
}
