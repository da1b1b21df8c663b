
func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 200]>], defaults = {b = 1}>} {
  // expected-erter 'b' does8
  return
}
gpu.yield
