//! One test per article clause of the issue (4.2-4.8, 5.1.1, 6.2.1, 7.5.1-7.5.5), each with its own small
//! event stream in tests/events/ and the rulings expected beside it.

mod rules_support;

use rules_support::check_case;

#[test]
fn art_4_2_1_adjust_announced() {
    check_case("art_4_2_1_adjust_announced");
}

#[test]
fn art_4_2_1_adjust_not_on_move() {
    check_case("art_4_2_1_adjust_not_on_move");
}

#[test]
fn art_4_2_1_touch_not_on_move() {
    check_case("art_4_2_1_touch_not_on_move");
}

#[test]
fn art_4_3_1_first_touched_own_piece() {
    check_case("art_4_3_1_first_touched_own_piece");
}

#[test]
fn art_4_3_2_first_touched_opponent_piece() {
    check_case("art_4_3_2_first_touched_opponent_piece");
}

#[test]
fn art_4_3_3_capture_impossible_first_piece_moves() {
    check_case("art_4_3_3_capture_impossible_first_piece_moves");
}

#[test]
fn art_4_3_3_capture_with_touched_own() {
    check_case("art_4_3_3_capture_with_touched_own");
}

#[test]
fn art_4_3_3_opponent_piece_clearly_first() {
    check_case("art_4_3_3_opponent_piece_clearly_first");
}

#[test]
fn art_4_3_3_order_unclear_own_piece_first() {
    check_case("art_4_3_3_order_unclear_own_piece_first");
}

#[test]
fn art_4_4_1_castling_in_order() {
    check_case("art_4_4_1_castling_in_order");
}

#[test]
fn art_4_4_1_king_and_rook_castle() {
    check_case("art_4_4_1_king_and_rook_castle");
}

#[test]
fn art_4_4_2_rook_first_no_castling() {
    check_case("art_4_4_2_rook_first_no_castling");
}

#[test]
fn art_4_4_3_king_then_rook_castling_illegal() {
    check_case("art_4_4_3_king_then_rook_castling_illegal");
}

#[test]
fn art_4_4_4_promotion_piece_final() {
    check_case("art_4_4_4_promotion_piece_final");
}

#[test]
fn art_4_5_touched_piece_cannot_move_no_penalty() {
    check_case("art_4_5_touched_piece_cannot_move_no_penalty");
}

#[test]
fn art_4_6_promotion_in_any_order() {
    check_case("art_4_6_promotion_in_any_order");
}

#[test]
fn art_4_7_king_released_two_squares_must_castle() {
    check_case("art_4_7_king_released_two_squares_must_castle");
}

#[test]
fn art_4_7_king_two_squares_clock_pressed() {
    check_case("art_4_7_king_two_squares_clock_pressed");
}

#[test]
fn art_4_7_released_piece_stays() {
    check_case("art_4_7_released_piece_stays");
}

#[test]
fn art_4_8_claim_forfeited_after_touching() {
    check_case("art_4_8_claim_forfeited_after_touching");
}

#[test]
fn art_4_8_claim_upheld_before_touching() {
    check_case("art_4_8_claim_upheld_before_touching");
}

#[test]
fn art_6_2_1_colors_only_scholars_mate() {
    check_case("art_6_2_1_colors_only_scholars_mate");
}

#[test]
fn art_6_2_1_no_clock_scholars_mate() {
    check_case("art_6_2_1_no_clock_scholars_mate");
}

#[test]
fn art_6_2_1_opponent_touch_completes_without_clock() {
    check_case("art_6_2_1_opponent_touch_completes_without_clock");
}

#[test]
fn art_7_5_2_promotion_not_completed_2009() {
    check_case("art_7_5_2_promotion_not_completed_2009");
}

#[test]
fn art_7_5_2_promotion_not_completed_becomes_queen() {
    check_case("art_7_5_2_promotion_not_completed_becomes_queen");
}

#[test]
fn art_7_5_5_second_illegal_move_draws_when_opponent_cannot_mate() {
    check_case("art_7_5_5_second_illegal_move_draws_when_opponent_cannot_mate");
}

#[test]
fn art_7_5_5_second_illegal_move_loses() {
    check_case("art_7_5_5_second_illegal_move_loses");
}

#[test]
fn unexplained_board_keeps_position() {
    check_case("unexplained_board_keeps_position");
}

#[test]
fn art_7_5_1_reinstated_then_replaced() {
    let (engine, _) = check_case("art_7_5_1_reinstated_then_replaced");
    assert!(!engine.illegal_stood());
}

#[test]
fn art_7_5_1_players_go_on_from_the_illegal_position() {
    // The arbiter ordered the position reinstated, the players went on: the engine follows the board.
    let (engine, _) = check_case("art_7_5_1_players_go_on_from_the_illegal_position");
    assert!(engine.illegal_stood());
    assert_eq!(
        engine.fen(),
        "rnb1kbnr/ppp2ppp/8/3qp3/8/2B5/PPPP1PPP/RN1QKBNR w KQkq - 0 4"
    );
}

#[test]
fn art_4_2_2_possible_touch_never_penalised() {
    check_case("art_4_2_2_possible_touch_never_penalised");
}

#[test]
fn colors_missed_board_ambiguous_is_reported_not_guessed() {
    let (engine, _) = check_case("colors_missed_board_ambiguous_is_reported_not_guessed");
    assert_eq!(
        engine.moves(),
        ["Nf3", "Nf6", "Nh4", "Nd5", "Nf5", "c6", "Nxg7+", "Bxg7"]
    );
}

#[test]
fn art_7_5_4_two_hands_penalised_as_illegal_move_stands() {
    let (engine, _) = check_case("art_7_5_4_two_hands_penalised_as_illegal_move_stands");
    assert_eq!(engine.moves(), ["e4"]);
}
