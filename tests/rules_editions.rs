//! What changes with the edition (2009/2023), the time control (rapid/blitz), supervision, and Chess960.

mod rules_support;

use rules_support::check_case;

#[test]
fn blitz_2009_supervised_as_standard() {
    check_case("blitz_2009_supervised_as_standard");
}

#[test]
fn blitz_2009_unsupervised_claim_wins() {
    check_case("blitz_2009_unsupervised_claim_wins");
}

#[test]
fn blitz_2023_supervised_one_minute() {
    check_case("blitz_2023_supervised_one_minute");
}

#[test]
fn chess960_castling_king_first() {
    check_case("chess960_castling_king_first");
}

#[test]
fn chess960_rook_first_is_a_rook_move_doubtful() {
    check_case("chess960_rook_first_is_a_rook_move_doubtful");
}

#[test]
fn laws_2009_third_illegal_move_loses() {
    check_case("laws_2009_third_illegal_move_loses");
}

#[test]
fn rapid_2009_supervised_two_minutes() {
    check_case("rapid_2009_supervised_two_minutes");
}

#[test]
fn rapid_2023_unsupervised_illegal_move_on_claim() {
    check_case("rapid_2023_unsupervised_illegal_move_on_claim");
}

#[test]
fn rapid_2023_unsupervised_illegal_move_stands_unclaimed() {
    check_case("rapid_2023_unsupervised_illegal_move_stands_unclaimed");
}

#[test]
fn laws_2009_two_hands_left_to_the_arbiter() {
    check_case("laws_2009_two_hands_left_to_the_arbiter");
}

#[test]
fn rapid_2023_unsupervised_promotion_not_completed_stands_on_claim() {
    let (engine, _) = check_case("rapid_2023_unsupervised_promotion_not_completed_stands_on_claim");
    assert_eq!(
        engine.moves(),
        ["a8=Q+"],
        "an upheld claim penalises, the queen stays (7.5.2)"
    );
}
