//! The link scanner on made-up markdown: what counts as a link, GitHub's slugs, and what
//! is reported broken.

use super::*;

fn targets_of(markdown: &str) -> Vec<String> {
    targets(markdown).into_iter().map(|l| l.target).collect()
}

#[test]
fn links_images_references_and_img_tags_are_found() {
    let text = "See [a](a.md) and ![p](plots/p.svg \"title\").\n\
                [![b](b.svg)](c.md#top) <img alt=\"x\" src=\"d.png\" width=3>\n\
                [ref]: <e f.md>\n\
                [wiki](https://x/y_(z)) [f](f_(1).md)\n";
    assert_eq!(
        targets_of(text),
        [
            "a.md",
            "plots/p.svg",
            "b.svg",
            "c.md#top",
            "d.png",
            "e f.md",
            "https://x/y_(z)",
            "f_(1).md"
        ]
    );
    assert_eq!(targets(text)[2].line, 2);
}

#[test]
fn code_is_not_scanned() {
    let text = "```\n[a](in_fence.md)\n```\nsee `[b](in_span.md)` and [c](c.md)\n";
    assert_eq!(targets_of(text), ["c.md"]);
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(
        slug("The verdict: for which workload is io_uring worth it?"),
        "the-verdict-for-which-workload-is-io_uring-worth-it"
    );
    assert_eq!(
        slug("Server CPU µs ÷ `tokio` [here](x.md)"),
        "server-cpu-µs--tokio-here"
    );
    let anchors = anchors("# Top\n## Top\n### Top ##\n<a name=\"custom\"></a>\n```\n# not\n```\n");
    let mut anchors: Vec<_> = anchors.into_iter().collect();
    anchors.sort();
    assert_eq!(anchors, ["custom", "top", "top-1", "top-2"]);
}

#[test]
fn missing_files_and_anchors_are_broken_and_urls_are_not_checked() {
    let text = "# Real heading\n\
                [ok](here.md) [gone](gone.svg) [file anchor](here.md#anything)\n\
                [in](#real-heading) [out](#no-such) [web](http://x/gone) [m](mailto:a@b)\n";
    let exists = |path: &Path| path == Path::new("dir/here.md");
    assert_eq!(
        broken(text, Path::new("dir"), &exists),
        [
            "line 2: gone.svg does not exist",
            "line 3: no heading makes anchor #no-such"
        ]
    );
}
