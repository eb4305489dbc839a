//! The camera side's models: one shared way to load an ONNX model ([`onnx`]), the
//! piece reader and the hand detector. Everything here turns pixels into the plain
//! data of [`crate::observation`].

pub mod clock;
pub mod hands;
pub mod onnx;
pub mod pieces;
