{
  user: .x |
}
