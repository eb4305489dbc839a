//! The seed cases (../shared/seeds/): each an event stream in tests/events/ with the rulings a FIDE arbiter
//! would give beside it.

mod rules_support;

use rules_support::check_case;

#[test]
fn fischer_donner_1966_touched_bishop_played_bd3_no_violation() {
    check_case("seed_fischer_donner");
}

#[test]
fn fischer_donner_variant_another_piece_is_a_touch_move_breach() {
    check_case("seed_fischer_donner_variant");
}

#[test]
fn unzicker_fischer_1960_touched_h_pawn_only_h6_or_h5() {
    check_case("seed_unzicker_fischer");
}

#[test]
fn karpov_chernin_1992_illegal_qe6_in_check_then_a_queen_move() {
    check_case("seed_karpov_chernin");
}

#[test]
fn tarrasch_alapin_1889_touched_bishop_must_play_be7() {
    check_case("seed_tarrasch_alapin");
}

#[test]
fn lindemann_echtermeyer_1893_bc3_illegal_no_king_move_forced_in_2023() {
    let (engine, _) = check_case("seed_lindemann_echtermeyer");
    assert_eq!(engine.moves(), ["e4", "d5", "exd5", "Qxd5", "Nc3"]);
}

#[test]
fn seminar_mate_by_irregular_move_does_not_end_the_game_in_2023() {
    let (engine, _) = check_case("seminar_mate_irregular_2023");
    assert!(!engine.is_over());
}

#[test]
fn seminar_mate_by_irregular_move_stands_in_2009() {
    let (engine, _) = check_case("seminar_mate_irregular_2009");
    assert!(engine.is_over());
}

#[test]
fn seminar_touch_queen_then_king_move_is_irregular_not_illegal() {
    check_case("seminar_touch_queen_play_king");
}

#[test]
fn seminar_clock_without_move_is_illegal_in_2023() {
    check_case("seminar_clock_without_move_2023");
}

#[test]
fn seminar_clock_without_move_is_left_to_the_arbiter_in_2009() {
    check_case("seminar_clock_without_move_2009");
}

#[test]
fn real_clip_scholars_mate_from_its_truth_file_without_a_clock() {
    let (engine, _) = check_case("real_scholarsmate_truth");
    assert_eq!(engine.moves(), ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]);
    assert_eq!(
        engine.fen(),
        "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"
    );
}
