"""A `/route` directive still counts under the `<!-- turnlens: … -->` lines that pin a turn."""

from turnlens.router.resolve import resolve_offline


def test_directive_under_a_pin_comment_counts() -> None:
    route = resolve_offline("<!-- turnlens: class=decision -->\n/route plan\nPlease rename the folder")
    assert (route.source, route.phase) == ("directive", "plan")


def test_directive_under_blank_lines_and_several_comments_counts() -> None:
    route = resolve_offline(
        "\n<!-- turnlens: ignore -->\n\n<!-- TURNLENS: class=code -->\n/route apply\nbump the version"
    )
    assert (route.source, route.phase) == ("directive", "apply")


def test_a_comment_that_is_not_a_turnlens_directive_is_prompt_text() -> None:
    route = resolve_offline("<!-- note to self -->\n/route plan\nPlease rename the folder")
    assert route.source != "directive"
