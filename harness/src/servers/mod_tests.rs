//! The catalogue as the lineup builds and starts it: every contender on a floor, HTTPS
//! only where a server has a rustls adapter, the io-uring-fs builds apart, one build
//! with no feature a dev-dependency adds, and who the agent on another host can start.

use super::*;

#[test]
fn every_contender_stands_on_a_floor_and_floors_on_none() {
    let floors: Vec<&str> = CONTENDERS.iter().map(|c| c.floor().unwrap().id).collect();
    assert_eq!(
        floors,
        [
            "bare_hyper",
            "bare_tokio",
            "bare_uring",
            "bare_uring",
            "bare_uring",
            "bare_uring"
        ]
    );
    assert_eq!(TOKIO_CODEC_SHARED.floor(), Some(FLOOR_TOKIO));
    assert!(FLOORS.iter().all(|f| f.is_floor() && f.floor().is_none()));
    assert!(!CONTENDERS.iter().any(Contender::is_floor));
    assert_eq!(by_id("bare_uring"), Some(FLOOR_URING));
}

#[test]
fn https_is_asked_only_of_servers_with_a_rustls_adapter_and_no_flag_refusing_it() {
    let speak: Vec<&str> = CONTENDERS
        .iter()
        .filter(|c| c.speaks_tls())
        .map(|c| c.id)
        .collect();
    assert_eq!(
        speak,
        ["tokio_hyper", "tokio_codec", "io_uring", "monoio", "compio"]
    );
    assert!(AA_CONTROL.speaks_tls() && TOKIO_HYPER_MULTI_THREAD.speaks_tls());
    for refuses in [TOKIO_CODEC_SHARED, TOKIO_CODEC_SENDFILE, NGINX, FLOOR_URING] {
        assert!(!refuses.speaks_tls(), "{}", refuses.id);
    }
    assert!(!io_uring_with("plain recv", &["--no-multishot-recv"]).speaks_tls());
    let refused = Server::start(TOKIO_URING, &HashMap::new(), None, (1, None, true));
    assert!(refused.err().unwrap().contains("does not serve HTTPS"));
}

#[test]
fn the_io_uring_fs_contenders_are_built_apart_and_stand_on_tokio_floors() {
    for contender in [TOKIO_CODEC_IO_URING_FS, TOKIO_HYPER_IO_URING_FS] {
        assert_eq!(contender.launch, Launch::CargoTokioIoUringFs);
        assert!(contender.launch.is_cargo());
        assert_eq!(contender.binary_key(), "tokio_server (io-uring-fs)");
        assert!(
            !CONTENDERS.contains(&contender),
            "the file study adds them itself"
        );
    }
    assert_eq!(TOKIO_CODEC_IO_URING_FS.args, TOKIO_CODEC.args);
    assert_eq!(TOKIO_HYPER_IO_URING_FS.args, TOKIO_HYPER.args);
    assert_eq!(TOKIO_CODEC_IO_URING_FS.floor(), Some(FLOOR_TOKIO));
    assert_eq!(TOKIO_HYPER_IO_URING_FS.floor(), Some(FLOOR_HYPER));
    assert_eq!(TOKIO_CODEC.binary_key(), "tokio_server");
}

/// The servers' build asks for each contender's binary by name (`--bin`): its package
/// must have it.
#[test]
fn every_cargo_launched_binary_is_a_binary_of_its_package() {
    let root = workspace_root();
    let every = findable_by_id().chain([AA_CONTROL]).chain(FLOORS);
    for contender in every.filter(|c| c.launch == Launch::Cargo) {
        let package = root.join(contender.package);
        let manifest = std::fs::read_to_string(package.join("Cargo.toml")).unwrap();
        let named = format!("name = \"{}\"", contender.binary);
        let declared = manifest.split("[[bin]]").skip(1).any(|bin| bin.contains(&named));
        let implicit = manifest.contains(&named) && package.join("src/main.rs").exists();
        assert!(
            declared || implicit,
            "{}: {} has no binary {}",
            contender.id,
            contender.package,
            contender.binary
        );
    }
}

/// `cargo bench` builds with the dev-dependencies' features, and so does the servers'
/// build (to share its dependencies): a feature one of them turned on (tokio's
/// `test-util`, say) would reach every server measured.
#[test]
fn no_dev_dependency_turns_on_a_feature() {
    let root = workspace_root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members = manifest
        .split("members = [")
        .nth(1)
        .unwrap()
        .split(']')
        .next()
        .unwrap();
    let members: Vec<&str> = members.split(',').map(|m| m.trim().trim_matches('"')).collect();
    assert!(members.contains(&"io_uring_server"), "{members:?}");
    for member in members.iter().filter(|m| !m.is_empty()) {
        let text = std::fs::read_to_string(root.join(member).join("Cargo.toml")).unwrap();
        let Some(dev) = text.split("[dev-dependencies]").nth(1) else {
            continue;
        };
        let section = dev.split("\n[").next().unwrap();
        assert!(
            !section.contains("features"),
            "{member}'s dev-dependencies: {section}"
        );
    }
}

#[test]
fn the_agent_starts_the_catalogue_and_the_a_a_control_by_id_and_nothing_else() {
    assert_eq!(offered_name(&IO_URING), Some("io_uring"));
    assert_eq!(offered_name(&AA_CONTROL), Some("io_uring"));
    assert_eq!(offered_name(&TOKIO_CODEC_SENDFILE), Some("tokio_codec_sendfile"));
    assert_eq!(
        offered_name(&TOKIO_HYPER_MULTI_THREAD),
        Some("tokio_hyper_multi_thread")
    );
    assert_eq!(offered_name(&NGINX), None);
    let feature = io_uring_with("plain recv", &["--no-multishot-recv"]);
    assert_eq!(
        offered_name(&feature),
        None,
        "a feature row's flags are not offered"
    );
}
