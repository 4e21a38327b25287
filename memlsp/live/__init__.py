"""A vault kept current while an editor works on it: its writer thread, its embedding thread,
what they tell their owner and how others wait for them."""
