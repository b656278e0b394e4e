module @jit_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=8]> {stablehlo.mesh = {axes = [{name = "data", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg4: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg5: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg6: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg7: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg8: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg9: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg10: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg11: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg12: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg13: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg14: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg15: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg16: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg17: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg18: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg19: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg20: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg21: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg22: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg23: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg24: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg25: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg26: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg27: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg28: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg29: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg30: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg31: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg32: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg33: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg34: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg35: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg36: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg37: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg38: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg39: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg40: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg41: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg42: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg43: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg44: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg45: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg46: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg47: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg48: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg49: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg50: tensor<128x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg51: tensor<50257x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg52: tensor<i32> {sdy.sharding = #sdy.sharding<@mesh, []>}, %arg53: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg54: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg55: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg56: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg57: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg58: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg59: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg60: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg61: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg62: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg63: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg64: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg65: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg66: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg67: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg68: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg69: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg70: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg71: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg72: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg73: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg74: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg75: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg76: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg77: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg78: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg79: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg80: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg81: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg82: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg83: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg84: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg85: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg86: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg87: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg88: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg89: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg90: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg91: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg92: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg93: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg94: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg95: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg96: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg97: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg98: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg99: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg100: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg101: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg102: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg103: tensor<128x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg104: tensor<50257x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg105: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg106: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg107: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg108: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg109: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg110: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg111: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg112: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg113: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg114: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg115: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg116: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg117: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg118: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg119: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg120: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg121: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg122: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg123: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg124: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg125: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg126: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg127: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg128: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg129: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg130: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg131: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg132: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg133: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg134: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg135: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg136: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg137: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg138: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg139: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg140: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg141: tensor<768xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg142: tensor<768x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg143: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg144: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg145: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg146: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg147: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg148: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg149: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg150: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg151: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg152: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg153: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg154: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg155: tensor<128x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg156: tensor<50257x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg157: tensor<16x128xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<768xf32> {jax.result_info = "result[1]['transformer']['h']['0']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[1]['transformer']['h']['0']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['0']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[1]['transformer']['h']['0']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['0']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['0']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['0']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['0']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[1]['transformer']['h']['0']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[1]['transformer']['h']['0']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['0']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[1]['transformer']['h']['0']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<768xf32> {jax.result_info = "result[1]['transformer']['h']['1']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[1]['transformer']['h']['1']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['1']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[1]['transformer']['h']['1']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['1']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['1']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['1']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['1']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[1]['transformer']['h']['1']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[1]['transformer']['h']['1']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['1']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[1]['transformer']['h']['1']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<768xf32> {jax.result_info = "result[1]['transformer']['h']['2']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[1]['transformer']['h']['2']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['2']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[1]['transformer']['h']['2']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['2']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['2']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['2']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['2']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[1]['transformer']['h']['2']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[1]['transformer']['h']['2']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['2']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[1]['transformer']['h']['2']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<768xf32> {jax.result_info = "result[1]['transformer']['h']['3']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[1]['transformer']['h']['3']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['3']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[1]['transformer']['h']['3']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['3']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['3']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['3']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['3']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[1]['transformer']['h']['3']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[1]['transformer']['h']['3']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['h']['3']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[1]['transformer']['h']['3']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['ln_f']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[1]['transformer']['ln_f']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<128x256xf32> {jax.result_info = "result[1]['transformer']['wpe']['embedding']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<50257x256xf32> {jax.result_info = "result[1]['transformer']['wte']['embedding']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<i32> {jax.result_info = "result[2][0].count", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<768xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['0']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<768xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['1']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<768xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['2']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<768xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[2][0].mu['transformer']['h']['3']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['ln_f']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].mu['transformer']['ln_f']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<128x256xf32> {jax.result_info = "result[2][0].mu['transformer']['wpe']['embedding']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<50257x256xf32> {jax.result_info = "result[2][0].mu['transformer']['wte']['embedding']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<768xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['0']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<768xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['1']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<768xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['2']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<768xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['attn']['c_attn']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<768x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['attn']['c_attn']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['attn']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['attn']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['ln_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['ln_1']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['ln_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['ln_2']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['mlp']['c_fc']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<1024x256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['mlp']['c_fc']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['mlp']['c_proj']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x1024xf32> {jax.result_info = "result[2][0].nu['transformer']['h']['3']['mlp']['c_proj']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['ln_f']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256xf32> {jax.result_info = "result[2][0].nu['transformer']['ln_f']['scale']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<128x256xf32> {jax.result_info = "result[2][0].nu['transformer']['wpe']['embedding']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<50257x256xf32> {jax.result_info = "result[2][0].nu['transformer']['wte']['embedding']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.iota dim = 0 : tensor<128xi32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<128xi32>) -> tensor<1x128xi32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x128xi32>) -> tensor<16x128xi32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %4 = stablehlo.convert %3 : (tensor<16x128xf32>) -> tensor<16x128xi32>
    %5:2 = call @_take(%arg51, %arg157) : (tensor<50257x256xf32>, tensor<16x128xi32>) -> (tensor<16x128x256xf32>, tensor<16x128x1xi32>)
    %6:2 = call @_take_0(%arg50, %2) : (tensor<128x256xf32>, tensor<16x128xi32>) -> (tensor<16x128x256xf32>, tensor<16x128x1xi32>)
    %7 = stablehlo.add %5#0, %6#0 : tensor<16x128x256xf32>
    %8 = chlo.square %7 : tensor<16x128x256xf32> -> tensor<16x128x256xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %10 = stablehlo.multiply %9, %7 : tensor<16x128x256xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%7 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_2 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %13 = stablehlo.divide %11, %12 : tensor<16x128xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.reduce(%8 init: %cst_3) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_4 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %16 = stablehlo.divide %14, %15 : tensor<16x128xf32>
    %17 = chlo.square %13 : tensor<16x128xf32> -> tensor<16x128xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %19 = stablehlo.multiply %18, %13 : tensor<16x128xf32>
    %20 = stablehlo.subtract %16, %17 : tensor<16x128xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %22 = stablehlo.maximum %21, %20 : tensor<16x128xf32>
    %23 = stablehlo.compare EQ, %20, %22, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %26 = stablehlo.select %23, %24, %25 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %28 = stablehlo.compare EQ, %27, %22, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_10 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %31 = stablehlo.select %28, %29, %30 : tensor<16x128xi1>, tensor<16x128xf32>
    %32 = stablehlo.divide %26, %31 : tensor<16x128xf32>
    %33 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %34 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %35 = stablehlo.broadcast_in_dim %33, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %36 = stablehlo.subtract %7, %35 : tensor<16x128x256xf32>
    %cst_12 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %38 = stablehlo.add %34, %37 : tensor<16x128x1xf32>
    %39 = stablehlo.rsqrt %38 : tensor<16x128x1xf32>
    %40 = stablehlo.divide %39, %38 : tensor<16x128x1xf32>
    %cst_13 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %42 = stablehlo.multiply %41, %40 : tensor<16x128x1xf32>
    %43 = stablehlo.reshape %arg5 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %44 = stablehlo.broadcast_in_dim %39, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %45 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %46 = stablehlo.multiply %44, %45 : tensor<16x128x256xf32>
    %47 = stablehlo.multiply %36, %46 : tensor<16x128x256xf32>
    %48 = stablehlo.reshape %arg4 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %49 = stablehlo.broadcast_in_dim %48, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %50 = stablehlo.add %47, %49 : tensor<16x128x256xf32>
    %51 = stablehlo.iota dim = 0 : tensor<128xi32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [1] : (tensor<128xi32>) -> tensor<1x128xi32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0, 1] : (tensor<1x128xi32>) -> tensor<1x128x1xi32>
    %54 = stablehlo.broadcast_in_dim %52, dims = [0, 2] : (tensor<1x128xi32>) -> tensor<1x1x128xi32>
    %55 = stablehlo.broadcast_in_dim %53, dims = [0, 1, 2] : (tensor<1x128x1xi32>) -> tensor<1x128x128xi32>
    %56 = stablehlo.broadcast_in_dim %54, dims = [0, 1, 2] : (tensor<1x1x128xi32>) -> tensor<1x128x128xi32>
    %57 = stablehlo.compare GE, %55, %56, SIGNED : (tensor<1x128x128xi32>, tensor<1x128x128xi32>) -> tensor<1x128x128xi1>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 2, 3] : (tensor<1x128x128xi1>) -> tensor<1x1x128x128xi1>
    %59 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %60 = stablehlo.dot_general %50, %59, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x768xf32>) -> tensor<16x128x768xf32>
    %61 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<768xf32>) -> tensor<1x1x768xf32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2] : (tensor<1x1x768xf32>) -> tensor<16x128x768xf32>
    %63 = stablehlo.add %60, %62 : tensor<16x128x768xf32>
    %64 = stablehlo.slice %63 [0:16, 0:128, 0:256] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %65 = stablehlo.slice %63 [0:16, 0:128, 256:512] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %66 = stablehlo.slice %63 [0:16, 0:128, 512:768] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %67 = stablehlo.reshape %64 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %68 = stablehlo.reshape %65 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %69 = stablehlo.reshape %66 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %70 = stablehlo.broadcast_in_dim %58, dims = [0, 1, 2, 3] : (tensor<1x1x128x128xi1>) -> tensor<16x1x128x128xi1>
    %71 = stablehlo.broadcast_in_dim %4, dims = [0, 3] : (tensor<16x128xi32>) -> tensor<16x1x1x128xi32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2, 3] : (tensor<16x1x1x128xi32>) -> tensor<16x1x128x128xi32>
    %73 = stablehlo.convert %70 : (tensor<16x1x128x128xi1>) -> tensor<16x1x128x128xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %74 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x1x128x128xi32>
    %75 = stablehlo.compare NE, %72, %74, SIGNED : (tensor<16x1x128x128xi32>, tensor<16x1x128x128xi32>) -> tensor<16x1x128x128xi1>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %76 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<16x1x128x128xi32>
    %77 = stablehlo.compare NE, %73, %76, SIGNED : (tensor<16x1x128x128xi32>, tensor<16x1x128x128xi32>) -> tensor<16x1x128x128xi1>
    %78 = stablehlo.and %75, %77 : tensor<16x1x128x128xi1>
    %79 = stablehlo.convert %78 : (tensor<16x1x128x128xi1>) -> tensor<16x1x128x128xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %80 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %81 = stablehlo.compare GT, %79, %80, FLOAT : (tensor<16x1x128x128xf32>, tensor<16x1x128x128xf32>) -> tensor<16x1x128x128xi1>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %83 = stablehlo.convert %82 : tensor<16x1x128x128xf32>
    %cst_17 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %85 = stablehlo.select %81, %83, %84 : tensor<16x1x128x128xi1>, tensor<16x1x128x128xf32>
    %cst_18 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %86 = stablehlo.sqrt %cst_18 : tensor<f32>
    %87 = stablehlo.convert %86 : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %87, dims = [] : (tensor<f32>) -> tensor<16x128x4x64xf32>
    %89 = stablehlo.divide %67, %88 : tensor<16x128x4x64xf32>
    %90 = stablehlo.dot_general %89, %68, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x128x4x64xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x128xf32>
    %91 = stablehlo.broadcast_in_dim %85, dims = [0, 1, 2, 3] : (tensor<16x1x128x128xf32>) -> tensor<16x4x128x128xf32>
    %92 = stablehlo.add %90, %91 : tensor<16x4x128x128xf32>
    %cst_19 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %93 = stablehlo.reduce(%92 init: %cst_19) applies stablehlo.maximum across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %cst_20 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<16x4x128xf32>
    %95 = stablehlo.maximum %94, %93 : tensor<16x4x128xf32>
    %96 = stablehlo.broadcast_in_dim %95, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %97 = stablehlo.broadcast_in_dim %96, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %98 = stablehlo.subtract %92, %97 : tensor<16x4x128x128xf32>
    %99 = stablehlo.exponential %98 : tensor<16x4x128x128xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %100 = stablehlo.reduce(%99 init: %cst_21) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %101 = stablehlo.broadcast_in_dim %100, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %102 = stablehlo.broadcast_in_dim %101, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %103 = stablehlo.divide %99, %102 : tensor<16x4x128x128xf32>
    %104 = stablehlo.multiply %101, %101 : tensor<16x4x128x1xf32>
    %cst_22 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<16x4x128x1xf32>
    %106 = stablehlo.divide %105, %104 : tensor<16x4x128x1xf32>
    %107 = stablehlo.dot_general %69, %103, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x128x4x64xf32>, tensor<16x4x128x128xf32>) -> tensor<16x4x64x128xf32>
    %108 = stablehlo.transpose %107, dims = [0, 3, 1, 2] : (tensor<16x4x64x128xf32>) -> tensor<16x128x4x64xf32>
    %109 = stablehlo.reshape %108 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %110 = stablehlo.transpose %arg3, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %111 = stablehlo.dot_general %109, %110, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x256xf32>) -> tensor<16x128x256xf32>
    %112 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %113 = stablehlo.broadcast_in_dim %112, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %114 = stablehlo.add %111, %113 : tensor<16x128x256xf32>
    %115 = stablehlo.add %114, %7 : tensor<16x128x256xf32>
    %116 = chlo.square %115 : tensor<16x128x256xf32> -> tensor<16x128x256xf32>
    %cst_23 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %117 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %118 = stablehlo.multiply %117, %115 : tensor<16x128x256xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %119 = stablehlo.reduce(%115 init: %cst_24) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_25 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %121 = stablehlo.divide %119, %120 : tensor<16x128xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %122 = stablehlo.reduce(%116 init: %cst_26) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_27 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %123 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %124 = stablehlo.divide %122, %123 : tensor<16x128xf32>
    %125 = chlo.square %121 : tensor<16x128xf32> -> tensor<16x128xf32>
    %cst_28 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %126 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %127 = stablehlo.multiply %126, %121 : tensor<16x128xf32>
    %128 = stablehlo.subtract %124, %125 : tensor<16x128xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %129 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %130 = stablehlo.maximum %129, %128 : tensor<16x128xf32>
    %131 = stablehlo.compare EQ, %128, %130, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_30 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %133 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %134 = stablehlo.select %131, %132, %133 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %135 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %136 = stablehlo.compare EQ, %135, %130, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_33 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_34 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %139 = stablehlo.select %136, %137, %138 : tensor<16x128xi1>, tensor<16x128xf32>
    %140 = stablehlo.divide %134, %139 : tensor<16x128xf32>
    %141 = stablehlo.broadcast_in_dim %121, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %142 = stablehlo.broadcast_in_dim %130, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %143 = stablehlo.broadcast_in_dim %141, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %144 = stablehlo.subtract %115, %143 : tensor<16x128x256xf32>
    %cst_35 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %145 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %146 = stablehlo.add %142, %145 : tensor<16x128x1xf32>
    %147 = stablehlo.rsqrt %146 : tensor<16x128x1xf32>
    %148 = stablehlo.divide %147, %146 : tensor<16x128x1xf32>
    %cst_36 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %149 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %150 = stablehlo.multiply %149, %148 : tensor<16x128x1xf32>
    %151 = stablehlo.reshape %arg7 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %152 = stablehlo.broadcast_in_dim %147, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %153 = stablehlo.broadcast_in_dim %151, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %154 = stablehlo.multiply %152, %153 : tensor<16x128x256xf32>
    %155 = stablehlo.multiply %144, %154 : tensor<16x128x256xf32>
    %156 = stablehlo.reshape %arg6 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %157 = stablehlo.broadcast_in_dim %156, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %158 = stablehlo.add %155, %157 : tensor<16x128x256xf32>
    %159 = stablehlo.transpose %arg9, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %160 = stablehlo.dot_general %158, %159, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x1024xf32>) -> tensor<16x128x1024xf32>
    %161 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %162 = stablehlo.broadcast_in_dim %161, dims = [0, 1, 2] : (tensor<1x1x1024xf32>) -> tensor<16x128x1024xf32>
    %163 = stablehlo.add %160, %162 : tensor<16x128x1024xf32>
    %164 = stablehlo.multiply %163, %163 : tensor<16x128x1024xf32>
    %165 = stablehlo.multiply %164, %163 : tensor<16x128x1024xf32>
    %166 = stablehlo.multiply %163, %163 : tensor<16x128x1024xf32>
    %cst_37 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %167 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %168 = stablehlo.multiply %167, %166 : tensor<16x128x1024xf32>
    %cst_38 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %169 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %170 = stablehlo.multiply %169, %165 : tensor<16x128x1024xf32>
    %171 = stablehlo.add %163, %170 : tensor<16x128x1024xf32>
    %cst_39 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %172 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %173 = stablehlo.multiply %172, %171 : tensor<16x128x1024xf32>
    %174 = stablehlo.tanh %173 : tensor<16x128x1024xf32>
    %cst_40 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %176 = stablehlo.subtract %175, %174 : tensor<16x128x1024xf32>
    %cst_41 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %177 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %178 = stablehlo.add %177, %174 : tensor<16x128x1024xf32>
    %cst_42 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %179 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %180 = stablehlo.multiply %179, %178 : tensor<16x128x1024xf32>
    %181 = stablehlo.multiply %163, %180 : tensor<16x128x1024xf32>
    %182 = stablehlo.transpose %arg11, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %183 = stablehlo.dot_general %181, %182, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<1024x256xf32>) -> tensor<16x128x256xf32>
    %184 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %185 = stablehlo.broadcast_in_dim %184, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %186 = stablehlo.add %183, %185 : tensor<16x128x256xf32>
    %187 = stablehlo.add %115, %186 : tensor<16x128x256xf32>
    %188 = chlo.square %187 : tensor<16x128x256xf32> -> tensor<16x128x256xf32>
    %cst_43 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %189 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %190 = stablehlo.multiply %189, %187 : tensor<16x128x256xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %191 = stablehlo.reduce(%187 init: %cst_44) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_45 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %192 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %193 = stablehlo.divide %191, %192 : tensor<16x128xf32>
    %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %194 = stablehlo.reduce(%188 init: %cst_46) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_47 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %195 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %196 = stablehlo.divide %194, %195 : tensor<16x128xf32>
    %197 = chlo.square %193 : tensor<16x128xf32> -> tensor<16x128xf32>
    %cst_48 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %198 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %199 = stablehlo.multiply %198, %193 : tensor<16x128xf32>
    %200 = stablehlo.subtract %196, %197 : tensor<16x128xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %201 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %202 = stablehlo.maximum %201, %200 : tensor<16x128xf32>
    %203 = stablehlo.compare EQ, %200, %202, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_50 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %204 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_51 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %205 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %206 = stablehlo.select %203, %204, %205 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %207 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %208 = stablehlo.compare EQ, %207, %202, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_53 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %209 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_54 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %210 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %211 = stablehlo.select %208, %209, %210 : tensor<16x128xi1>, tensor<16x128xf32>
    %212 = stablehlo.divide %206, %211 : tensor<16x128xf32>
    %213 = stablehlo.broadcast_in_dim %193, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %214 = stablehlo.broadcast_in_dim %202, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %215 = stablehlo.broadcast_in_dim %213, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %216 = stablehlo.subtract %187, %215 : tensor<16x128x256xf32>
    %cst_55 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %217 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %218 = stablehlo.add %214, %217 : tensor<16x128x1xf32>
    %219 = stablehlo.rsqrt %218 : tensor<16x128x1xf32>
    %220 = stablehlo.divide %219, %218 : tensor<16x128x1xf32>
    %cst_56 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %221 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %222 = stablehlo.multiply %221, %220 : tensor<16x128x1xf32>
    %223 = stablehlo.reshape %arg17 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %224 = stablehlo.broadcast_in_dim %219, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %225 = stablehlo.broadcast_in_dim %223, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %226 = stablehlo.multiply %224, %225 : tensor<16x128x256xf32>
    %227 = stablehlo.multiply %216, %226 : tensor<16x128x256xf32>
    %228 = stablehlo.reshape %arg16 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %229 = stablehlo.broadcast_in_dim %228, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %230 = stablehlo.add %227, %229 : tensor<16x128x256xf32>
    %231 = stablehlo.iota dim = 0 : tensor<128xi32>
    %232 = stablehlo.broadcast_in_dim %231, dims = [1] : (tensor<128xi32>) -> tensor<1x128xi32>
    %233 = stablehlo.broadcast_in_dim %232, dims = [0, 1] : (tensor<1x128xi32>) -> tensor<1x128x1xi32>
    %234 = stablehlo.broadcast_in_dim %232, dims = [0, 2] : (tensor<1x128xi32>) -> tensor<1x1x128xi32>
    %235 = stablehlo.broadcast_in_dim %233, dims = [0, 1, 2] : (tensor<1x128x1xi32>) -> tensor<1x128x128xi32>
    %236 = stablehlo.broadcast_in_dim %234, dims = [0, 1, 2] : (tensor<1x1x128xi32>) -> tensor<1x128x128xi32>
    %237 = stablehlo.compare GE, %235, %236, SIGNED : (tensor<1x128x128xi32>, tensor<1x128x128xi32>) -> tensor<1x128x128xi1>
    %238 = stablehlo.broadcast_in_dim %237, dims = [0, 2, 3] : (tensor<1x128x128xi1>) -> tensor<1x1x128x128xi1>
    %239 = stablehlo.transpose %arg13, dims = [1, 0] : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %240 = stablehlo.dot_general %230, %239, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x768xf32>) -> tensor<16x128x768xf32>
    %241 = stablehlo.broadcast_in_dim %arg12, dims = [2] : (tensor<768xf32>) -> tensor<1x1x768xf32>
    %242 = stablehlo.broadcast_in_dim %241, dims = [0, 1, 2] : (tensor<1x1x768xf32>) -> tensor<16x128x768xf32>
    %243 = stablehlo.add %240, %242 : tensor<16x128x768xf32>
    %244 = stablehlo.slice %243 [0:16, 0:128, 0:256] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %245 = stablehlo.slice %243 [0:16, 0:128, 256:512] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %246 = stablehlo.slice %243 [0:16, 0:128, 512:768] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %247 = stablehlo.reshape %244 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %248 = stablehlo.reshape %245 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %249 = stablehlo.reshape %246 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %250 = stablehlo.broadcast_in_dim %238, dims = [0, 1, 2, 3] : (tensor<1x1x128x128xi1>) -> tensor<16x1x128x128xi1>
    %251 = stablehlo.broadcast_in_dim %4, dims = [0, 3] : (tensor<16x128xi32>) -> tensor<16x1x1x128xi32>
    %252 = stablehlo.broadcast_in_dim %251, dims = [0, 1, 2, 3] : (tensor<16x1x1x128xi32>) -> tensor<16x1x128x128xi32>
    %253 = stablehlo.convert %250 : (tensor<16x1x128x128xi1>) -> tensor<16x1x128x128xi32>
    %c_57 = stablehlo.constant dense<0> : tensor<i32>
    %254 = stablehlo.broadcast_in_dim %c_57, dims = [] : (tensor<i32>) -> tensor<16x1x128x128xi32>
    %255 = stablehlo.compare NE, %252, %254, SIGNED : (tensor<16x1x128x128xi32>, tensor<16x1x128x128xi32>) -> tensor<16x1x128x128xi1>
    %c_58 = stablehlo.constant dense<0> : tensor<i32>
    %256 = stablehlo.broadcast_in_dim %c_58, dims = [] : (tensor<i32>) -> tensor<16x1x128x128xi32>
    %257 = stablehlo.compare NE, %253, %256, SIGNED : (tensor<16x1x128x128xi32>, tensor<16x1x128x128xi32>) -> tensor<16x1x128x128xi1>
    %258 = stablehlo.and %255, %257 : tensor<16x1x128x128xi1>
    %259 = stablehlo.convert %258 : (tensor<16x1x128x128xi1>) -> tensor<16x1x128x128xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %260 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %261 = stablehlo.compare GT, %259, %260, FLOAT : (tensor<16x1x128x128xf32>, tensor<16x1x128x128xf32>) -> tensor<16x1x128x128xi1>
    %cst_60 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %262 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %263 = stablehlo.convert %262 : tensor<16x1x128x128xf32>
    %cst_61 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %264 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %265 = stablehlo.select %261, %263, %264 : tensor<16x1x128x128xi1>, tensor<16x1x128x128xf32>
    %cst_62 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %266 = stablehlo.sqrt %cst_62 : tensor<f32>
    %267 = stablehlo.convert %266 : tensor<f32>
    %268 = stablehlo.broadcast_in_dim %267, dims = [] : (tensor<f32>) -> tensor<16x128x4x64xf32>
    %269 = stablehlo.divide %247, %268 : tensor<16x128x4x64xf32>
    %270 = stablehlo.dot_general %269, %248, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x128x4x64xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x128xf32>
    %271 = stablehlo.broadcast_in_dim %265, dims = [0, 1, 2, 3] : (tensor<16x1x128x128xf32>) -> tensor<16x4x128x128xf32>
    %272 = stablehlo.add %270, %271 : tensor<16x4x128x128xf32>
    %cst_63 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %273 = stablehlo.reduce(%272 init: %cst_63) applies stablehlo.maximum across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %cst_64 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %274 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<f32>) -> tensor<16x4x128xf32>
    %275 = stablehlo.maximum %274, %273 : tensor<16x4x128xf32>
    %276 = stablehlo.broadcast_in_dim %275, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %277 = stablehlo.broadcast_in_dim %276, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %278 = stablehlo.subtract %272, %277 : tensor<16x4x128x128xf32>
    %279 = stablehlo.exponential %278 : tensor<16x4x128x128xf32>
    %cst_65 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %280 = stablehlo.reduce(%279 init: %cst_65) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %281 = stablehlo.broadcast_in_dim %280, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %282 = stablehlo.broadcast_in_dim %281, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %283 = stablehlo.divide %279, %282 : tensor<16x4x128x128xf32>
    %284 = stablehlo.multiply %281, %281 : tensor<16x4x128x1xf32>
    %cst_66 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %285 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<16x4x128x1xf32>
    %286 = stablehlo.divide %285, %284 : tensor<16x4x128x1xf32>
    %287 = stablehlo.dot_general %249, %283, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x128x4x64xf32>, tensor<16x4x128x128xf32>) -> tensor<16x4x64x128xf32>
    %288 = stablehlo.transpose %287, dims = [0, 3, 1, 2] : (tensor<16x4x64x128xf32>) -> tensor<16x128x4x64xf32>
    %289 = stablehlo.reshape %288 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %290 = stablehlo.transpose %arg15, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %291 = stablehlo.dot_general %289, %290, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x256xf32>) -> tensor<16x128x256xf32>
    %292 = stablehlo.broadcast_in_dim %arg14, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %293 = stablehlo.broadcast_in_dim %292, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %294 = stablehlo.add %291, %293 : tensor<16x128x256xf32>
    %295 = stablehlo.add %294, %187 : tensor<16x128x256xf32>
    %296 = chlo.square %295 : tensor<16x128x256xf32> -> tensor<16x128x256xf32>
    %cst_67 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %297 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %298 = stablehlo.multiply %297, %295 : tensor<16x128x256xf32>
    %cst_68 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %299 = stablehlo.reduce(%295 init: %cst_68) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_69 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %300 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %301 = stablehlo.divide %299, %300 : tensor<16x128xf32>
    %cst_70 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %302 = stablehlo.reduce(%296 init: %cst_70) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_71 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %303 = stablehlo.broadcast_in_dim %cst_71, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %304 = stablehlo.divide %302, %303 : tensor<16x128xf32>
    %305 = chlo.square %301 : tensor<16x128xf32> -> tensor<16x128xf32>
    %cst_72 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %306 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %307 = stablehlo.multiply %306, %301 : tensor<16x128xf32>
    %308 = stablehlo.subtract %304, %305 : tensor<16x128xf32>
    %cst_73 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %309 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %310 = stablehlo.maximum %309, %308 : tensor<16x128xf32>
    %311 = stablehlo.compare EQ, %308, %310, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_74 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %312 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_75 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %313 = stablehlo.broadcast_in_dim %cst_75, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %314 = stablehlo.select %311, %312, %313 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_76 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %315 = stablehlo.broadcast_in_dim %cst_76, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %316 = stablehlo.compare EQ, %315, %310, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_77 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %317 = stablehlo.broadcast_in_dim %cst_77, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_78 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %318 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %319 = stablehlo.select %316, %317, %318 : tensor<16x128xi1>, tensor<16x128xf32>
    %320 = stablehlo.divide %314, %319 : tensor<16x128xf32>
    %321 = stablehlo.broadcast_in_dim %301, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %322 = stablehlo.broadcast_in_dim %310, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %323 = stablehlo.broadcast_in_dim %321, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %324 = stablehlo.subtract %295, %323 : tensor<16x128x256xf32>
    %cst_79 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %325 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %326 = stablehlo.add %322, %325 : tensor<16x128x1xf32>
    %327 = stablehlo.rsqrt %326 : tensor<16x128x1xf32>
    %328 = stablehlo.divide %327, %326 : tensor<16x128x1xf32>
    %cst_80 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %329 = stablehlo.broadcast_in_dim %cst_80, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %330 = stablehlo.multiply %329, %328 : tensor<16x128x1xf32>
    %331 = stablehlo.reshape %arg19 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %332 = stablehlo.broadcast_in_dim %327, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %333 = stablehlo.broadcast_in_dim %331, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %334 = stablehlo.multiply %332, %333 : tensor<16x128x256xf32>
    %335 = stablehlo.multiply %324, %334 : tensor<16x128x256xf32>
    %336 = stablehlo.reshape %arg18 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %337 = stablehlo.broadcast_in_dim %336, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %338 = stablehlo.add %335, %337 : tensor<16x128x256xf32>
    %339 = stablehlo.transpose %arg21, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %340 = stablehlo.dot_general %338, %339, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x1024xf32>) -> tensor<16x128x1024xf32>
    %341 = stablehlo.broadcast_in_dim %arg20, dims = [2] : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %342 = stablehlo.broadcast_in_dim %341, dims = [0, 1, 2] : (tensor<1x1x1024xf32>) -> tensor<16x128x1024xf32>
    %343 = stablehlo.add %340, %342 : tensor<16x128x1024xf32>
    %344 = stablehlo.multiply %343, %343 : tensor<16x128x1024xf32>
    %345 = stablehlo.multiply %344, %343 : tensor<16x128x1024xf32>
    %346 = stablehlo.multiply %343, %343 : tensor<16x128x1024xf32>
    %cst_81 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %347 = stablehlo.broadcast_in_dim %cst_81, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %348 = stablehlo.multiply %347, %346 : tensor<16x128x1024xf32>
    %cst_82 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %349 = stablehlo.broadcast_in_dim %cst_82, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %350 = stablehlo.multiply %349, %345 : tensor<16x128x1024xf32>
    %351 = stablehlo.add %343, %350 : tensor<16x128x1024xf32>
    %cst_83 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %352 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %353 = stablehlo.multiply %352, %351 : tensor<16x128x1024xf32>
    %354 = stablehlo.tanh %353 : tensor<16x128x1024xf32>
    %cst_84 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %355 = stablehlo.broadcast_in_dim %cst_84, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %356 = stablehlo.subtract %355, %354 : tensor<16x128x1024xf32>
    %cst_85 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %357 = stablehlo.broadcast_in_dim %cst_85, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %358 = stablehlo.add %357, %354 : tensor<16x128x1024xf32>
    %cst_86 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %359 = stablehlo.broadcast_in_dim %cst_86, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %360 = stablehlo.multiply %359, %358 : tensor<16x128x1024xf32>
    %361 = stablehlo.multiply %343, %360 : tensor<16x128x1024xf32>
    %362 = stablehlo.transpose %arg23, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %363 = stablehlo.dot_general %361, %362, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<1024x256xf32>) -> tensor<16x128x256xf32>
    %364 = stablehlo.broadcast_in_dim %arg22, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %365 = stablehlo.broadcast_in_dim %364, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %366 = stablehlo.add %363, %365 : tensor<16x128x256xf32>
    %367 = stablehlo.add %295, %366 : tensor<16x128x256xf32>
    %368 = chlo.square %367 : tensor<16x128x256xf32> -> tensor<16x128x256xf32>
    %cst_87 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %369 = stablehlo.broadcast_in_dim %cst_87, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %370 = stablehlo.multiply %369, %367 : tensor<16x128x256xf32>
    %cst_88 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %371 = stablehlo.reduce(%367 init: %cst_88) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_89 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %372 = stablehlo.broadcast_in_dim %cst_89, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %373 = stablehlo.divide %371, %372 : tensor<16x128xf32>
    %cst_90 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %374 = stablehlo.reduce(%368 init: %cst_90) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_91 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %375 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %376 = stablehlo.divide %374, %375 : tensor<16x128xf32>
    %377 = chlo.square %373 : tensor<16x128xf32> -> tensor<16x128xf32>
    %cst_92 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %378 = stablehlo.broadcast_in_dim %cst_92, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %379 = stablehlo.multiply %378, %373 : tensor<16x128xf32>
    %380 = stablehlo.subtract %376, %377 : tensor<16x128xf32>
    %cst_93 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %381 = stablehlo.broadcast_in_dim %cst_93, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %382 = stablehlo.maximum %381, %380 : tensor<16x128xf32>
    %383 = stablehlo.compare EQ, %380, %382, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_94 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %384 = stablehlo.broadcast_in_dim %cst_94, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_95 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %385 = stablehlo.broadcast_in_dim %cst_95, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %386 = stablehlo.select %383, %384, %385 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_96 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %387 = stablehlo.broadcast_in_dim %cst_96, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %388 = stablehlo.compare EQ, %387, %382, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_97 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %389 = stablehlo.broadcast_in_dim %cst_97, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_98 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %390 = stablehlo.broadcast_in_dim %cst_98, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %391 = stablehlo.select %388, %389, %390 : tensor<16x128xi1>, tensor<16x128xf32>
    %392 = stablehlo.divide %386, %391 : tensor<16x128xf32>
    %393 = stablehlo.broadcast_in_dim %373, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %394 = stablehlo.broadcast_in_dim %382, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %395 = stablehlo.broadcast_in_dim %393, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %396 = stablehlo.subtract %367, %395 : tensor<16x128x256xf32>
    %cst_99 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %397 = stablehlo.broadcast_in_dim %cst_99, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %398 = stablehlo.add %394, %397 : tensor<16x128x1xf32>
    %399 = stablehlo.rsqrt %398 : tensor<16x128x1xf32>
    %400 = stablehlo.divide %399, %398 : tensor<16x128x1xf32>
    %cst_100 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %401 = stablehlo.broadcast_in_dim %cst_100, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %402 = stablehlo.multiply %401, %400 : tensor<16x128x1xf32>
    %403 = stablehlo.reshape %arg29 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %404 = stablehlo.broadcast_in_dim %399, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %405 = stablehlo.broadcast_in_dim %403, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %406 = stablehlo.multiply %404, %405 : tensor<16x128x256xf32>
    %407 = stablehlo.multiply %396, %406 : tensor<16x128x256xf32>
    %408 = stablehlo.reshape %arg28 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %409 = stablehlo.broadcast_in_dim %408, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %410 = stablehlo.add %407, %409 : tensor<16x128x256xf32>
    %411 = stablehlo.iota dim = 0 : tensor<128xi32>
    %412 = stablehlo.broadcast_in_dim %411, dims = [1] : (tensor<128xi32>) -> tensor<1x128xi32>
    %413 = stablehlo.broadcast_in_dim %412, dims = [0, 1] : (tensor<1x128xi32>) -> tensor<1x128x1xi32>
    %414 = stablehlo.broadcast_in_dim %412, dims = [0, 2] : (tensor<1x128xi32>) -> tensor<1x1x128xi32>
    %415 = stablehlo.broadcast_in_dim %413, dims = [0, 1, 2] : (tensor<1x128x1xi32>) -> tensor<1x128x128xi32>
    %416 = stablehlo.broadcast_in_dim %414, dims = [0, 1, 2] : (tensor<1x1x128xi32>) -> tensor<1x128x128xi32>
    %417 = stablehlo.compare GE, %415, %416, SIGNED : (tensor<1x128x128xi32>, tensor<1x128x128xi32>) -> tensor<1x128x128xi1>
    %418 = stablehlo.broadcast_in_dim %417, dims = [0, 2, 3] : (tensor<1x128x128xi1>) -> tensor<1x1x128x128xi1>
    %419 = stablehlo.transpose %arg25, dims = [1, 0] : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %420 = stablehlo.dot_general %410, %419, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x768xf32>) -> tensor<16x128x768xf32>
    %421 = stablehlo.broadcast_in_dim %arg24, dims = [2] : (tensor<768xf32>) -> tensor<1x1x768xf32>
    %422 = stablehlo.broadcast_in_dim %421, dims = [0, 1, 2] : (tensor<1x1x768xf32>) -> tensor<16x128x768xf32>
    %423 = stablehlo.add %420, %422 : tensor<16x128x768xf32>
    %424 = stablehlo.slice %423 [0:16, 0:128, 0:256] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %425 = stablehlo.slice %423 [0:16, 0:128, 256:512] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %426 = stablehlo.slice %423 [0:16, 0:128, 512:768] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %427 = stablehlo.reshape %424 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %428 = stablehlo.reshape %425 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %429 = stablehlo.reshape %426 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %430 = stablehlo.broadcast_in_dim %418, dims = [0, 1, 2, 3] : (tensor<1x1x128x128xi1>) -> tensor<16x1x128x128xi1>
    %431 = stablehlo.broadcast_in_dim %4, dims = [0, 3] : (tensor<16x128xi32>) -> tensor<16x1x1x128xi32>
    %432 = stablehlo.broadcast_in_dim %431, dims = [0, 1, 2, 3] : (tensor<16x1x1x128xi32>) -> tensor<16x1x128x128xi32>
    %433 = stablehlo.convert %430 : (tensor<16x1x128x128xi1>) -> tensor<16x1x128x128xi32>
    %c_101 = stablehlo.constant dense<0> : tensor<i32>
    %434 = stablehlo.broadcast_in_dim %c_101, dims = [] : (tensor<i32>) -> tensor<16x1x128x128xi32>
    %435 = stablehlo.compare NE, %432, %434, SIGNED : (tensor<16x1x128x128xi32>, tensor<16x1x128x128xi32>) -> tensor<16x1x128x128xi1>
    %c_102 = stablehlo.constant dense<0> : tensor<i32>
    %436 = stablehlo.broadcast_in_dim %c_102, dims = [] : (tensor<i32>) -> tensor<16x1x128x128xi32>
    %437 = stablehlo.compare NE, %433, %436, SIGNED : (tensor<16x1x128x128xi32>, tensor<16x1x128x128xi32>) -> tensor<16x1x128x128xi1>
    %438 = stablehlo.and %435, %437 : tensor<16x1x128x128xi1>
    %439 = stablehlo.convert %438 : (tensor<16x1x128x128xi1>) -> tensor<16x1x128x128xf32>
    %cst_103 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %440 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %441 = stablehlo.compare GT, %439, %440, FLOAT : (tensor<16x1x128x128xf32>, tensor<16x1x128x128xf32>) -> tensor<16x1x128x128xi1>
    %cst_104 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %442 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %443 = stablehlo.convert %442 : tensor<16x1x128x128xf32>
    %cst_105 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %444 = stablehlo.broadcast_in_dim %cst_105, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %445 = stablehlo.select %441, %443, %444 : tensor<16x1x128x128xi1>, tensor<16x1x128x128xf32>
    %cst_106 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %446 = stablehlo.sqrt %cst_106 : tensor<f32>
    %447 = stablehlo.convert %446 : tensor<f32>
    %448 = stablehlo.broadcast_in_dim %447, dims = [] : (tensor<f32>) -> tensor<16x128x4x64xf32>
    %449 = stablehlo.divide %427, %448 : tensor<16x128x4x64xf32>
    %450 = stablehlo.dot_general %449, %428, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x128x4x64xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x128xf32>
    %451 = stablehlo.broadcast_in_dim %445, dims = [0, 1, 2, 3] : (tensor<16x1x128x128xf32>) -> tensor<16x4x128x128xf32>
    %452 = stablehlo.add %450, %451 : tensor<16x4x128x128xf32>
    %cst_107 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %453 = stablehlo.reduce(%452 init: %cst_107) applies stablehlo.maximum across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %cst_108 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %454 = stablehlo.broadcast_in_dim %cst_108, dims = [] : (tensor<f32>) -> tensor<16x4x128xf32>
    %455 = stablehlo.maximum %454, %453 : tensor<16x4x128xf32>
    %456 = stablehlo.broadcast_in_dim %455, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %457 = stablehlo.broadcast_in_dim %456, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %458 = stablehlo.subtract %452, %457 : tensor<16x4x128x128xf32>
    %459 = stablehlo.exponential %458 : tensor<16x4x128x128xf32>
    %cst_109 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %460 = stablehlo.reduce(%459 init: %cst_109) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %461 = stablehlo.broadcast_in_dim %460, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %462 = stablehlo.broadcast_in_dim %461, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %463 = stablehlo.divide %459, %462 : tensor<16x4x128x128xf32>
    %464 = stablehlo.multiply %461, %461 : tensor<16x4x128x1xf32>
    %cst_110 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %465 = stablehlo.broadcast_in_dim %cst_110, dims = [] : (tensor<f32>) -> tensor<16x4x128x1xf32>
    %466 = stablehlo.divide %465, %464 : tensor<16x4x128x1xf32>
    %467 = stablehlo.dot_general %429, %463, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x128x4x64xf32>, tensor<16x4x128x128xf32>) -> tensor<16x4x64x128xf32>
    %468 = stablehlo.transpose %467, dims = [0, 3, 1, 2] : (tensor<16x4x64x128xf32>) -> tensor<16x128x4x64xf32>
    %469 = stablehlo.reshape %468 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %470 = stablehlo.transpose %arg27, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %471 = stablehlo.dot_general %469, %470, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x256xf32>) -> tensor<16x128x256xf32>
    %472 = stablehlo.broadcast_in_dim %arg26, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %473 = stablehlo.broadcast_in_dim %472, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %474 = stablehlo.add %471, %473 : tensor<16x128x256xf32>
    %475 = stablehlo.add %474, %367 : tensor<16x128x256xf32>
    %476 = chlo.square %475 : tensor<16x128x256xf32> -> tensor<16x128x256xf32>
    %cst_111 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %477 = stablehlo.broadcast_in_dim %cst_111, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %478 = stablehlo.multiply %477, %475 : tensor<16x128x256xf32>
    %cst_112 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %479 = stablehlo.reduce(%475 init: %cst_112) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_113 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %480 = stablehlo.broadcast_in_dim %cst_113, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %481 = stablehlo.divide %479, %480 : tensor<16x128xf32>
    %cst_114 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %482 = stablehlo.reduce(%476 init: %cst_114) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_115 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %483 = stablehlo.broadcast_in_dim %cst_115, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %484 = stablehlo.divide %482, %483 : tensor<16x128xf32>
    %485 = chlo.square %481 : tensor<16x128xf32> -> tensor<16x128xf32>
    %cst_116 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %486 = stablehlo.broadcast_in_dim %cst_116, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %487 = stablehlo.multiply %486, %481 : tensor<16x128xf32>
    %488 = stablehlo.subtract %484, %485 : tensor<16x128xf32>
    %cst_117 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %489 = stablehlo.broadcast_in_dim %cst_117, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %490 = stablehlo.maximum %489, %488 : tensor<16x128xf32>
    %491 = stablehlo.compare EQ, %488, %490, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_118 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %492 = stablehlo.broadcast_in_dim %cst_118, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_119 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %493 = stablehlo.broadcast_in_dim %cst_119, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %494 = stablehlo.select %491, %492, %493 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_120 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %495 = stablehlo.broadcast_in_dim %cst_120, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %496 = stablehlo.compare EQ, %495, %490, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_121 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %497 = stablehlo.broadcast_in_dim %cst_121, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_122 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %498 = stablehlo.broadcast_in_dim %cst_122, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %499 = stablehlo.select %496, %497, %498 : tensor<16x128xi1>, tensor<16x128xf32>
    %500 = stablehlo.divide %494, %499 : tensor<16x128xf32>
    %501 = stablehlo.broadcast_in_dim %481, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %502 = stablehlo.broadcast_in_dim %490, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %503 = stablehlo.broadcast_in_dim %501, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %504 = stablehlo.subtract %475, %503 : tensor<16x128x256xf32>
    %cst_123 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %505 = stablehlo.broadcast_in_dim %cst_123, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %506 = stablehlo.add %502, %505 : tensor<16x128x1xf32>
    %507 = stablehlo.rsqrt %506 : tensor<16x128x1xf32>
    %508 = stablehlo.divide %507, %506 : tensor<16x128x1xf32>
    %cst_124 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %509 = stablehlo.broadcast_in_dim %cst_124, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %510 = stablehlo.multiply %509, %508 : tensor<16x128x1xf32>
    %511 = stablehlo.reshape %arg31 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %512 = stablehlo.broadcast_in_dim %507, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %513 = stablehlo.broadcast_in_dim %511, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %514 = stablehlo.multiply %512, %513 : tensor<16x128x256xf32>
    %515 = stablehlo.multiply %504, %514 : tensor<16x128x256xf32>
    %516 = stablehlo.reshape %arg30 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %517 = stablehlo.broadcast_in_dim %516, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %518 = stablehlo.add %515, %517 : tensor<16x128x256xf32>
    %519 = stablehlo.transpose %arg33, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %520 = stablehlo.dot_general %518, %519, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x1024xf32>) -> tensor<16x128x1024xf32>
    %521 = stablehlo.broadcast_in_dim %arg32, dims = [2] : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %522 = stablehlo.broadcast_in_dim %521, dims = [0, 1, 2] : (tensor<1x1x1024xf32>) -> tensor<16x128x1024xf32>
    %523 = stablehlo.add %520, %522 : tensor<16x128x1024xf32>
    %524 = stablehlo.multiply %523, %523 : tensor<16x128x1024xf32>
    %525 = stablehlo.multiply %524, %523 : tensor<16x128x1024xf32>
    %526 = stablehlo.multiply %523, %523 : tensor<16x128x1024xf32>
    %cst_125 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %527 = stablehlo.broadcast_in_dim %cst_125, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %528 = stablehlo.multiply %527, %526 : tensor<16x128x1024xf32>
    %cst_126 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %529 = stablehlo.broadcast_in_dim %cst_126, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %530 = stablehlo.multiply %529, %525 : tensor<16x128x1024xf32>
    %531 = stablehlo.add %523, %530 : tensor<16x128x1024xf32>
    %cst_127 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %532 = stablehlo.broadcast_in_dim %cst_127, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %533 = stablehlo.multiply %532, %531 : tensor<16x128x1024xf32>
    %534 = stablehlo.tanh %533 : tensor<16x128x1024xf32>
    %cst_128 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %535 = stablehlo.broadcast_in_dim %cst_128, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %536 = stablehlo.subtract %535, %534 : tensor<16x128x1024xf32>
    %cst_129 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %537 = stablehlo.broadcast_in_dim %cst_129, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %538 = stablehlo.add %537, %534 : tensor<16x128x1024xf32>
    %cst_130 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %539 = stablehlo.broadcast_in_dim %cst_130, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %540 = stablehlo.multiply %539, %538 : tensor<16x128x1024xf32>
    %541 = stablehlo.multiply %523, %540 : tensor<16x128x1024xf32>
    %542 = stablehlo.transpose %arg35, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %543 = stablehlo.dot_general %541, %542, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<1024x256xf32>) -> tensor<16x128x256xf32>
    %544 = stablehlo.broadcast_in_dim %arg34, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %545 = stablehlo.broadcast_in_dim %544, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %546 = stablehlo.add %543, %545 : tensor<16x128x256xf32>
    %547 = stablehlo.add %475, %546 : tensor<16x128x256xf32>
    %548 = chlo.square %547 : tensor<16x128x256xf32> -> tensor<16x128x256xf32>
    %cst_131 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %549 = stablehlo.broadcast_in_dim %cst_131, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %550 = stablehlo.multiply %549, %547 : tensor<16x128x256xf32>
    %cst_132 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %551 = stablehlo.reduce(%547 init: %cst_132) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_133 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %552 = stablehlo.broadcast_in_dim %cst_133, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %553 = stablehlo.divide %551, %552 : tensor<16x128xf32>
    %cst_134 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %554 = stablehlo.reduce(%548 init: %cst_134) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_135 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %555 = stablehlo.broadcast_in_dim %cst_135, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %556 = stablehlo.divide %554, %555 : tensor<16x128xf32>
    %557 = chlo.square %553 : tensor<16x128xf32> -> tensor<16x128xf32>
    %cst_136 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %558 = stablehlo.broadcast_in_dim %cst_136, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %559 = stablehlo.multiply %558, %553 : tensor<16x128xf32>
    %560 = stablehlo.subtract %556, %557 : tensor<16x128xf32>
    %cst_137 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %561 = stablehlo.broadcast_in_dim %cst_137, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %562 = stablehlo.maximum %561, %560 : tensor<16x128xf32>
    %563 = stablehlo.compare EQ, %560, %562, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_138 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %564 = stablehlo.broadcast_in_dim %cst_138, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_139 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %565 = stablehlo.broadcast_in_dim %cst_139, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %566 = stablehlo.select %563, %564, %565 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_140 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %567 = stablehlo.broadcast_in_dim %cst_140, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %568 = stablehlo.compare EQ, %567, %562, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_141 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %569 = stablehlo.broadcast_in_dim %cst_141, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_142 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %570 = stablehlo.broadcast_in_dim %cst_142, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %571 = stablehlo.select %568, %569, %570 : tensor<16x128xi1>, tensor<16x128xf32>
    %572 = stablehlo.divide %566, %571 : tensor<16x128xf32>
    %573 = stablehlo.broadcast_in_dim %553, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %574 = stablehlo.broadcast_in_dim %562, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %575 = stablehlo.broadcast_in_dim %573, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %576 = stablehlo.subtract %547, %575 : tensor<16x128x256xf32>
    %cst_143 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %577 = stablehlo.broadcast_in_dim %cst_143, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %578 = stablehlo.add %574, %577 : tensor<16x128x1xf32>
    %579 = stablehlo.rsqrt %578 : tensor<16x128x1xf32>
    %580 = stablehlo.divide %579, %578 : tensor<16x128x1xf32>
    %cst_144 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %581 = stablehlo.broadcast_in_dim %cst_144, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %582 = stablehlo.multiply %581, %580 : tensor<16x128x1xf32>
    %583 = stablehlo.reshape %arg41 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %584 = stablehlo.broadcast_in_dim %579, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %585 = stablehlo.broadcast_in_dim %583, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %586 = stablehlo.multiply %584, %585 : tensor<16x128x256xf32>
    %587 = stablehlo.multiply %576, %586 : tensor<16x128x256xf32>
    %588 = stablehlo.reshape %arg40 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %589 = stablehlo.broadcast_in_dim %588, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %590 = stablehlo.add %587, %589 : tensor<16x128x256xf32>
    %591 = stablehlo.iota dim = 0 : tensor<128xi32>
    %592 = stablehlo.broadcast_in_dim %591, dims = [1] : (tensor<128xi32>) -> tensor<1x128xi32>
    %593 = stablehlo.broadcast_in_dim %592, dims = [0, 1] : (tensor<1x128xi32>) -> tensor<1x128x1xi32>
    %594 = stablehlo.broadcast_in_dim %592, dims = [0, 2] : (tensor<1x128xi32>) -> tensor<1x1x128xi32>
    %595 = stablehlo.broadcast_in_dim %593, dims = [0, 1, 2] : (tensor<1x128x1xi32>) -> tensor<1x128x128xi32>
    %596 = stablehlo.broadcast_in_dim %594, dims = [0, 1, 2] : (tensor<1x1x128xi32>) -> tensor<1x128x128xi32>
    %597 = stablehlo.compare GE, %595, %596, SIGNED : (tensor<1x128x128xi32>, tensor<1x128x128xi32>) -> tensor<1x128x128xi1>
    %598 = stablehlo.broadcast_in_dim %597, dims = [0, 2, 3] : (tensor<1x128x128xi1>) -> tensor<1x1x128x128xi1>
    %599 = stablehlo.transpose %arg37, dims = [1, 0] : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %600 = stablehlo.dot_general %590, %599, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x768xf32>) -> tensor<16x128x768xf32>
    %601 = stablehlo.broadcast_in_dim %arg36, dims = [2] : (tensor<768xf32>) -> tensor<1x1x768xf32>
    %602 = stablehlo.broadcast_in_dim %601, dims = [0, 1, 2] : (tensor<1x1x768xf32>) -> tensor<16x128x768xf32>
    %603 = stablehlo.add %600, %602 : tensor<16x128x768xf32>
    %604 = stablehlo.slice %603 [0:16, 0:128, 0:256] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %605 = stablehlo.slice %603 [0:16, 0:128, 256:512] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %606 = stablehlo.slice %603 [0:16, 0:128, 512:768] : (tensor<16x128x768xf32>) -> tensor<16x128x256xf32>
    %607 = stablehlo.reshape %604 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %608 = stablehlo.reshape %605 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %609 = stablehlo.reshape %606 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %610 = stablehlo.broadcast_in_dim %598, dims = [0, 1, 2, 3] : (tensor<1x1x128x128xi1>) -> tensor<16x1x128x128xi1>
    %611 = stablehlo.broadcast_in_dim %4, dims = [0, 3] : (tensor<16x128xi32>) -> tensor<16x1x1x128xi32>
    %612 = stablehlo.broadcast_in_dim %611, dims = [0, 1, 2, 3] : (tensor<16x1x1x128xi32>) -> tensor<16x1x128x128xi32>
    %613 = stablehlo.convert %610 : (tensor<16x1x128x128xi1>) -> tensor<16x1x128x128xi32>
    %c_145 = stablehlo.constant dense<0> : tensor<i32>
    %614 = stablehlo.broadcast_in_dim %c_145, dims = [] : (tensor<i32>) -> tensor<16x1x128x128xi32>
    %615 = stablehlo.compare NE, %612, %614, SIGNED : (tensor<16x1x128x128xi32>, tensor<16x1x128x128xi32>) -> tensor<16x1x128x128xi1>
    %c_146 = stablehlo.constant dense<0> : tensor<i32>
    %616 = stablehlo.broadcast_in_dim %c_146, dims = [] : (tensor<i32>) -> tensor<16x1x128x128xi32>
    %617 = stablehlo.compare NE, %613, %616, SIGNED : (tensor<16x1x128x128xi32>, tensor<16x1x128x128xi32>) -> tensor<16x1x128x128xi1>
    %618 = stablehlo.and %615, %617 : tensor<16x1x128x128xi1>
    %619 = stablehlo.convert %618 : (tensor<16x1x128x128xi1>) -> tensor<16x1x128x128xf32>
    %cst_147 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %620 = stablehlo.broadcast_in_dim %cst_147, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %621 = stablehlo.compare GT, %619, %620, FLOAT : (tensor<16x1x128x128xf32>, tensor<16x1x128x128xf32>) -> tensor<16x1x128x128xi1>
    %cst_148 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %622 = stablehlo.broadcast_in_dim %cst_148, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %623 = stablehlo.convert %622 : tensor<16x1x128x128xf32>
    %cst_149 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %624 = stablehlo.broadcast_in_dim %cst_149, dims = [] : (tensor<f32>) -> tensor<16x1x128x128xf32>
    %625 = stablehlo.select %621, %623, %624 : tensor<16x1x128x128xi1>, tensor<16x1x128x128xf32>
    %cst_150 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %626 = stablehlo.sqrt %cst_150 : tensor<f32>
    %627 = stablehlo.convert %626 : tensor<f32>
    %628 = stablehlo.broadcast_in_dim %627, dims = [] : (tensor<f32>) -> tensor<16x128x4x64xf32>
    %629 = stablehlo.divide %607, %628 : tensor<16x128x4x64xf32>
    %630 = stablehlo.dot_general %629, %608, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x128x4x64xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x128xf32>
    %631 = stablehlo.broadcast_in_dim %625, dims = [0, 1, 2, 3] : (tensor<16x1x128x128xf32>) -> tensor<16x4x128x128xf32>
    %632 = stablehlo.add %630, %631 : tensor<16x4x128x128xf32>
    %cst_151 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %633 = stablehlo.reduce(%632 init: %cst_151) applies stablehlo.maximum across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %cst_152 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %634 = stablehlo.broadcast_in_dim %cst_152, dims = [] : (tensor<f32>) -> tensor<16x4x128xf32>
    %635 = stablehlo.maximum %634, %633 : tensor<16x4x128xf32>
    %636 = stablehlo.broadcast_in_dim %635, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %637 = stablehlo.broadcast_in_dim %636, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %638 = stablehlo.subtract %632, %637 : tensor<16x4x128x128xf32>
    %639 = stablehlo.exponential %638 : tensor<16x4x128x128xf32>
    %cst_153 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %640 = stablehlo.reduce(%639 init: %cst_153) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %641 = stablehlo.broadcast_in_dim %640, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %642 = stablehlo.broadcast_in_dim %641, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %643 = stablehlo.divide %639, %642 : tensor<16x4x128x128xf32>
    %644 = stablehlo.multiply %641, %641 : tensor<16x4x128x1xf32>
    %cst_154 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %645 = stablehlo.broadcast_in_dim %cst_154, dims = [] : (tensor<f32>) -> tensor<16x4x128x1xf32>
    %646 = stablehlo.divide %645, %644 : tensor<16x4x128x1xf32>
    %647 = stablehlo.dot_general %609, %643, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x128x4x64xf32>, tensor<16x4x128x128xf32>) -> tensor<16x4x64x128xf32>
    %648 = stablehlo.transpose %647, dims = [0, 3, 1, 2] : (tensor<16x4x64x128xf32>) -> tensor<16x128x4x64xf32>
    %649 = stablehlo.reshape %648 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %650 = stablehlo.transpose %arg39, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %651 = stablehlo.dot_general %649, %650, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x256xf32>) -> tensor<16x128x256xf32>
    %652 = stablehlo.broadcast_in_dim %arg38, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %653 = stablehlo.broadcast_in_dim %652, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %654 = stablehlo.add %651, %653 : tensor<16x128x256xf32>
    %655 = stablehlo.add %654, %547 : tensor<16x128x256xf32>
    %656 = chlo.square %655 : tensor<16x128x256xf32> -> tensor<16x128x256xf32>
    %cst_155 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %657 = stablehlo.broadcast_in_dim %cst_155, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %658 = stablehlo.multiply %657, %655 : tensor<16x128x256xf32>
    %cst_156 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %659 = stablehlo.reduce(%655 init: %cst_156) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_157 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %660 = stablehlo.broadcast_in_dim %cst_157, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %661 = stablehlo.divide %659, %660 : tensor<16x128xf32>
    %cst_158 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %662 = stablehlo.reduce(%656 init: %cst_158) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_159 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %663 = stablehlo.broadcast_in_dim %cst_159, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %664 = stablehlo.divide %662, %663 : tensor<16x128xf32>
    %665 = chlo.square %661 : tensor<16x128xf32> -> tensor<16x128xf32>
    %cst_160 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %666 = stablehlo.broadcast_in_dim %cst_160, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %667 = stablehlo.multiply %666, %661 : tensor<16x128xf32>
    %668 = stablehlo.subtract %664, %665 : tensor<16x128xf32>
    %cst_161 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %669 = stablehlo.broadcast_in_dim %cst_161, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %670 = stablehlo.maximum %669, %668 : tensor<16x128xf32>
    %671 = stablehlo.compare EQ, %668, %670, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_162 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %672 = stablehlo.broadcast_in_dim %cst_162, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_163 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %673 = stablehlo.broadcast_in_dim %cst_163, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %674 = stablehlo.select %671, %672, %673 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_164 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %675 = stablehlo.broadcast_in_dim %cst_164, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %676 = stablehlo.compare EQ, %675, %670, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_165 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %677 = stablehlo.broadcast_in_dim %cst_165, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_166 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %678 = stablehlo.broadcast_in_dim %cst_166, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %679 = stablehlo.select %676, %677, %678 : tensor<16x128xi1>, tensor<16x128xf32>
    %680 = stablehlo.divide %674, %679 : tensor<16x128xf32>
    %681 = stablehlo.broadcast_in_dim %661, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %682 = stablehlo.broadcast_in_dim %670, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %683 = stablehlo.broadcast_in_dim %681, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %684 = stablehlo.subtract %655, %683 : tensor<16x128x256xf32>
    %cst_167 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %685 = stablehlo.broadcast_in_dim %cst_167, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %686 = stablehlo.add %682, %685 : tensor<16x128x1xf32>
    %687 = stablehlo.rsqrt %686 : tensor<16x128x1xf32>
    %688 = stablehlo.divide %687, %686 : tensor<16x128x1xf32>
    %cst_168 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %689 = stablehlo.broadcast_in_dim %cst_168, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %690 = stablehlo.multiply %689, %688 : tensor<16x128x1xf32>
    %691 = stablehlo.reshape %arg43 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %692 = stablehlo.broadcast_in_dim %687, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %693 = stablehlo.broadcast_in_dim %691, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %694 = stablehlo.multiply %692, %693 : tensor<16x128x256xf32>
    %695 = stablehlo.multiply %684, %694 : tensor<16x128x256xf32>
    %696 = stablehlo.reshape %arg42 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %697 = stablehlo.broadcast_in_dim %696, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %698 = stablehlo.add %695, %697 : tensor<16x128x256xf32>
    %699 = stablehlo.transpose %arg45, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %700 = stablehlo.dot_general %698, %699, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x1024xf32>) -> tensor<16x128x1024xf32>
    %701 = stablehlo.broadcast_in_dim %arg44, dims = [2] : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %702 = stablehlo.broadcast_in_dim %701, dims = [0, 1, 2] : (tensor<1x1x1024xf32>) -> tensor<16x128x1024xf32>
    %703 = stablehlo.add %700, %702 : tensor<16x128x1024xf32>
    %704 = stablehlo.multiply %703, %703 : tensor<16x128x1024xf32>
    %705 = stablehlo.multiply %704, %703 : tensor<16x128x1024xf32>
    %706 = stablehlo.multiply %703, %703 : tensor<16x128x1024xf32>
    %cst_169 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %707 = stablehlo.broadcast_in_dim %cst_169, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %708 = stablehlo.multiply %707, %706 : tensor<16x128x1024xf32>
    %cst_170 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %709 = stablehlo.broadcast_in_dim %cst_170, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %710 = stablehlo.multiply %709, %705 : tensor<16x128x1024xf32>
    %711 = stablehlo.add %703, %710 : tensor<16x128x1024xf32>
    %cst_171 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %712 = stablehlo.broadcast_in_dim %cst_171, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %713 = stablehlo.multiply %712, %711 : tensor<16x128x1024xf32>
    %714 = stablehlo.tanh %713 : tensor<16x128x1024xf32>
    %cst_172 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %715 = stablehlo.broadcast_in_dim %cst_172, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %716 = stablehlo.subtract %715, %714 : tensor<16x128x1024xf32>
    %cst_173 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %717 = stablehlo.broadcast_in_dim %cst_173, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %718 = stablehlo.add %717, %714 : tensor<16x128x1024xf32>
    %cst_174 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %719 = stablehlo.broadcast_in_dim %cst_174, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %720 = stablehlo.multiply %719, %718 : tensor<16x128x1024xf32>
    %721 = stablehlo.multiply %703, %720 : tensor<16x128x1024xf32>
    %722 = stablehlo.transpose %arg47, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %723 = stablehlo.dot_general %721, %722, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<1024x256xf32>) -> tensor<16x128x256xf32>
    %724 = stablehlo.broadcast_in_dim %arg46, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %725 = stablehlo.broadcast_in_dim %724, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %726 = stablehlo.add %723, %725 : tensor<16x128x256xf32>
    %727 = stablehlo.add %655, %726 : tensor<16x128x256xf32>
    %728 = chlo.square %727 : tensor<16x128x256xf32> -> tensor<16x128x256xf32>
    %cst_175 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %729 = stablehlo.broadcast_in_dim %cst_175, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %730 = stablehlo.multiply %729, %727 : tensor<16x128x256xf32>
    %cst_176 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %731 = stablehlo.reduce(%727 init: %cst_176) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_177 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %732 = stablehlo.broadcast_in_dim %cst_177, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %733 = stablehlo.divide %731, %732 : tensor<16x128xf32>
    %cst_178 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %734 = stablehlo.reduce(%728 init: %cst_178) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_179 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %735 = stablehlo.broadcast_in_dim %cst_179, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %736 = stablehlo.divide %734, %735 : tensor<16x128xf32>
    %737 = chlo.square %733 : tensor<16x128xf32> -> tensor<16x128xf32>
    %cst_180 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %738 = stablehlo.broadcast_in_dim %cst_180, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %739 = stablehlo.multiply %738, %733 : tensor<16x128xf32>
    %740 = stablehlo.subtract %736, %737 : tensor<16x128xf32>
    %cst_181 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %741 = stablehlo.broadcast_in_dim %cst_181, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %742 = stablehlo.maximum %741, %740 : tensor<16x128xf32>
    %743 = stablehlo.compare EQ, %740, %742, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_182 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %744 = stablehlo.broadcast_in_dim %cst_182, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_183 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %745 = stablehlo.broadcast_in_dim %cst_183, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %746 = stablehlo.select %743, %744, %745 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_184 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %747 = stablehlo.broadcast_in_dim %cst_184, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %748 = stablehlo.compare EQ, %747, %742, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %cst_185 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %749 = stablehlo.broadcast_in_dim %cst_185, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %cst_186 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %750 = stablehlo.broadcast_in_dim %cst_186, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %751 = stablehlo.select %748, %749, %750 : tensor<16x128xi1>, tensor<16x128xf32>
    %752 = stablehlo.divide %746, %751 : tensor<16x128xf32>
    %753 = stablehlo.broadcast_in_dim %733, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %754 = stablehlo.broadcast_in_dim %742, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %755 = stablehlo.broadcast_in_dim %753, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %756 = stablehlo.subtract %727, %755 : tensor<16x128x256xf32>
    %cst_187 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %757 = stablehlo.broadcast_in_dim %cst_187, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %758 = stablehlo.add %754, %757 : tensor<16x128x1xf32>
    %759 = stablehlo.rsqrt %758 : tensor<16x128x1xf32>
    %760 = stablehlo.divide %759, %758 : tensor<16x128x1xf32>
    %cst_188 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %761 = stablehlo.broadcast_in_dim %cst_188, dims = [] : (tensor<f32>) -> tensor<16x128x1xf32>
    %762 = stablehlo.multiply %761, %760 : tensor<16x128x1xf32>
    %763 = stablehlo.reshape %arg49 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %764 = stablehlo.broadcast_in_dim %759, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %765 = stablehlo.broadcast_in_dim %763, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %766 = stablehlo.multiply %764, %765 : tensor<16x128x256xf32>
    %767 = stablehlo.multiply %756, %766 : tensor<16x128x256xf32>
    %768 = stablehlo.reshape %arg48 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %769 = stablehlo.broadcast_in_dim %768, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %770 = stablehlo.add %767, %769 : tensor<16x128x256xf32>
    %771 = stablehlo.transpose %arg51, dims = [1, 0] : (tensor<50257x256xf32>) -> tensor<256x50257xf32>
    %772 = stablehlo.dot_general %770, %771, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x50257xf32>) -> tensor<16x128x50257xf32>
    %773 = stablehlo.slice %772 [0:16, 0:127, 0:50257] : (tensor<16x128x50257xf32>) -> tensor<16x127x50257xf32>
    %774 = stablehlo.slice %arg157 [0:16, 1:128] : (tensor<16x128xi32>) -> tensor<16x127xi32>
    %775 = stablehlo.broadcast_in_dim %774, dims = [0, 1] : (tensor<16x127xi32>) -> tensor<16x127x1xi32>
    %776:2 = call @take_along_axis(%773, %775) : (tensor<16x127x50257xf32>, tensor<16x127x1xi32>) -> (tensor<16x127x1xf32>, tensor<16x127x1x1xi32>)
    %c_189 = stablehlo.constant dense<0> : tensor<i32>
    %777:2 = call @_take_1(%776#0, %c_189) : (tensor<16x127x1xf32>, tensor<i32>) -> (tensor<16x127xf32>, tensor<1xi32>)
    %cst_190 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %778 = stablehlo.reduce(%773 init: %cst_190) applies stablehlo.maximum across dimensions = [2] : (tensor<16x127x50257xf32>, tensor<f32>) -> tensor<16x127xf32>
    %cst_191 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %779 = stablehlo.broadcast_in_dim %cst_191, dims = [] : (tensor<f32>) -> tensor<16x127xf32>
    %780 = stablehlo.maximum %779, %778 : tensor<16x127xf32>
    %781 = stablehlo.is_finite %780 : (tensor<16x127xf32>) -> tensor<16x127xi1>
    %cst_192 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %782 = stablehlo.broadcast_in_dim %cst_192, dims = [] : (tensor<f32>) -> tensor<16x127xf32>
    %783 = stablehlo.select %781, %780, %782 : tensor<16x127xi1>, tensor<16x127xf32>
    %784 = stablehlo.broadcast_in_dim %783, dims = [0, 1] : (tensor<16x127xf32>) -> tensor<16x127x1xf32>
    %785 = stablehlo.broadcast_in_dim %784, dims = [0, 1, 2] : (tensor<16x127x1xf32>) -> tensor<16x127x50257xf32>
    %786 = stablehlo.subtract %773, %785 : tensor<16x127x50257xf32>
    %787 = stablehlo.exponential %786 : tensor<16x127x50257xf32>
    %cst_193 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %788 = stablehlo.reduce(%787 init: %cst_193) applies stablehlo.add across dimensions = [2] : (tensor<16x127x50257xf32>, tensor<f32>) -> tensor<16x127xf32>
    %789 = stablehlo.abs %788 : tensor<16x127xf32>
    %cst_194 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %790 = stablehlo.broadcast_in_dim %cst_194, dims = [] : (tensor<f32>) -> tensor<16x127xf32>
    %791 = stablehlo.compare GE, %788, %790, FLOAT : (tensor<16x127xf32>, tensor<16x127xf32>) -> tensor<16x127xi1>
    %792 = stablehlo.log %789 : tensor<16x127xf32>
    %793 = stablehlo.add %792, %783 : tensor<16x127xf32>
    %794 = stablehlo.subtract %793, %777#0 : tensor<16x127xf32>
    %cst_195 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %795 = stablehlo.reduce(%794 init: %cst_195) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x127xf32>, tensor<f32>) -> tensor<f32>
    %cst_196 = stablehlo.constant dense<2.032000e+03> : tensor<f32>
    %796 = stablehlo.divide %795, %cst_196 : tensor<f32>
    %cst_197 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_198 = stablehlo.constant dense<2.032000e+03> : tensor<f32>
    %797 = stablehlo.divide %cst_197, %cst_198 : tensor<f32>
    %798 = stablehlo.broadcast_in_dim %797, dims = [] : (tensor<f32>) -> tensor<16x127xf32>
    %799 = stablehlo.negate %798 : tensor<16x127xf32>
    %800 = stablehlo.divide %798, %789 : tensor<16x127xf32>
    %cst_199 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %801 = stablehlo.broadcast_in_dim %cst_199, dims = [] : (tensor<f32>) -> tensor<16x127xf32>
    %802 = stablehlo.select %791, %801, %800 : tensor<16x127xi1>, tensor<16x127xf32>
    %803 = stablehlo.select %791, %800, %801 : tensor<16x127xi1>, tensor<16x127xf32>
    %804 = stablehlo.negate %802 : tensor<16x127xf32>
    %805 = stablehlo.add %803, %804 : tensor<16x127xf32>
    %806 = stablehlo.broadcast_in_dim %805, dims = [0, 1] : (tensor<16x127xf32>) -> tensor<16x127x50257xf32>
    %807 = stablehlo.multiply %806, %787 : tensor<16x127x50257xf32>
    %808 = call @_take_3(%777#1, %799) : (tensor<1xi32>, tensor<16x127xf32>) -> tensor<16x127x1xf32>
    %809 = call @take_along_axis_4(%776#1, %808) : (tensor<16x127x1x1xi32>, tensor<16x127x1xf32>) -> tensor<16x127x50257xf32>
    %810 = stablehlo.add %807, %809 : tensor<16x127x50257xf32>
    %cst_200 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %811 = stablehlo.pad %810, %cst_200, low = [0, 0, 0], high = [0, 1, 0], interior = [0, 0, 0] : (tensor<16x127x50257xf32>, tensor<f32>) -> tensor<16x128x50257xf32>
    %812 = stablehlo.dot_general %811, %770, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x50257xf32>, tensor<16x128x256xf32>) -> tensor<50257x256xf32>
    %813 = stablehlo.transpose %812, dims = [1, 0] : (tensor<50257x256xf32>) -> tensor<256x50257xf32>
    %814 = stablehlo.dot_general %811, %771, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x50257xf32>, tensor<256x50257xf32>) -> tensor<16x128x256xf32>
    %815 = stablehlo.transpose %813, dims = [1, 0] : (tensor<256x50257xf32>) -> tensor<50257x256xf32>
    %cst_201 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %816 = stablehlo.reduce(%814 init: %cst_201) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %817 = stablehlo.reshape %816 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %818 = stablehlo.reshape %817 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %819 = stablehlo.multiply %756, %814 : tensor<16x128x256xf32>
    %820 = stablehlo.multiply %814, %766 : tensor<16x128x256xf32>
    %821 = stablehlo.broadcast_in_dim %759, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %822 = stablehlo.multiply %821, %819 : tensor<16x128x256xf32>
    %cst_202 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %823 = stablehlo.reduce(%822 init: %cst_202) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %824 = stablehlo.reshape %823 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %825 = stablehlo.broadcast_in_dim %763, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %826 = stablehlo.multiply %819, %825 : tensor<16x128x256xf32>
    %cst_203 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %827 = stablehlo.reduce(%826 init: %cst_203) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %828 = stablehlo.reshape %827 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %829 = stablehlo.reshape %824 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %830 = stablehlo.multiply %828, %762 : tensor<16x128x1xf32>
    %831 = stablehlo.negate %820 : tensor<16x128x256xf32>
    %cst_204 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %832 = stablehlo.reduce(%831 init: %cst_204) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %833 = stablehlo.reshape %832 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %cst_205 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %834 = stablehlo.reduce(%830 init: %cst_205) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_206 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %835 = stablehlo.reduce(%833 init: %cst_206) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %836 = stablehlo.multiply %834, %752 : tensor<16x128xf32>
    %837 = stablehlo.negate %836 : tensor<16x128xf32>
    %838 = stablehlo.multiply %837, %739 : tensor<16x128xf32>
    %839 = stablehlo.add %835, %838 : tensor<16x128xf32>
    %cst_207 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %840 = stablehlo.broadcast_in_dim %cst_207, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %841 = stablehlo.divide %836, %840 : tensor<16x128xf32>
    %842 = stablehlo.broadcast_in_dim %841, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %cst_208 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %843 = stablehlo.broadcast_in_dim %cst_208, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %844 = stablehlo.divide %839, %843 : tensor<16x128xf32>
    %845 = stablehlo.broadcast_in_dim %844, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %846 = stablehlo.add %820, %845 : tensor<16x128x256xf32>
    %847 = stablehlo.multiply %842, %730 : tensor<16x128x256xf32>
    %848 = stablehlo.add %846, %847 : tensor<16x128x256xf32>
    %cst_209 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %849 = stablehlo.reduce(%848 init: %cst_209) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %850 = stablehlo.reshape %849 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_210 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %851 = stablehlo.reduce(%850 init: %cst_210) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %852 = stablehlo.dot_general %848, %721, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<16x128x1024xf32>) -> tensor<256x1024xf32>
    %853 = stablehlo.transpose %852, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %854 = stablehlo.dot_general %848, %722, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<1024x256xf32>) -> tensor<16x128x1024xf32>
    %855 = stablehlo.transpose %853, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %856 = stablehlo.multiply %703, %854 : tensor<16x128x1024xf32>
    %857 = stablehlo.multiply %854, %720 : tensor<16x128x1024xf32>
    %cst_211 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %858 = stablehlo.broadcast_in_dim %cst_211, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %859 = stablehlo.multiply %858, %856 : tensor<16x128x1024xf32>
    %860 = stablehlo.multiply %859, %716 : tensor<16x128x1024xf32>
    %861 = stablehlo.multiply %860, %714 : tensor<16x128x1024xf32>
    %862 = stablehlo.add %860, %861 : tensor<16x128x1024xf32>
    %cst_212 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %863 = stablehlo.broadcast_in_dim %cst_212, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %864 = stablehlo.multiply %863, %862 : tensor<16x128x1024xf32>
    %865 = stablehlo.add %857, %864 : tensor<16x128x1024xf32>
    %cst_213 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %866 = stablehlo.broadcast_in_dim %cst_213, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %867 = stablehlo.multiply %866, %864 : tensor<16x128x1024xf32>
    %868 = stablehlo.multiply %867, %708 : tensor<16x128x1024xf32>
    %869 = stablehlo.add %865, %868 : tensor<16x128x1024xf32>
    %cst_214 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %870 = stablehlo.reduce(%869 init: %cst_214) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %871 = stablehlo.reshape %870 : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %cst_215 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %872 = stablehlo.reduce(%871 init: %cst_215) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %873 = stablehlo.dot_general %869, %698, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<16x128x256xf32>) -> tensor<1024x256xf32>
    %874 = stablehlo.transpose %873, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %875 = stablehlo.dot_general %869, %699, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<256x1024xf32>) -> tensor<16x128x256xf32>
    %876 = stablehlo.transpose %874, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %cst_216 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %877 = stablehlo.reduce(%875 init: %cst_216) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %878 = stablehlo.reshape %877 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %879 = stablehlo.reshape %878 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %880 = stablehlo.multiply %684, %875 : tensor<16x128x256xf32>
    %881 = stablehlo.multiply %875, %694 : tensor<16x128x256xf32>
    %882 = stablehlo.broadcast_in_dim %687, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %883 = stablehlo.multiply %882, %880 : tensor<16x128x256xf32>
    %cst_217 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %884 = stablehlo.reduce(%883 init: %cst_217) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %885 = stablehlo.reshape %884 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %886 = stablehlo.broadcast_in_dim %691, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %887 = stablehlo.multiply %880, %886 : tensor<16x128x256xf32>
    %cst_218 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %888 = stablehlo.reduce(%887 init: %cst_218) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %889 = stablehlo.reshape %888 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %890 = stablehlo.reshape %885 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %891 = stablehlo.multiply %889, %690 : tensor<16x128x1xf32>
    %892 = stablehlo.negate %881 : tensor<16x128x256xf32>
    %cst_219 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %893 = stablehlo.reduce(%892 init: %cst_219) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %894 = stablehlo.reshape %893 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %895 = stablehlo.add %848, %881 : tensor<16x128x256xf32>
    %cst_220 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %896 = stablehlo.reduce(%891 init: %cst_220) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_221 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %897 = stablehlo.reduce(%894 init: %cst_221) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %898 = stablehlo.multiply %896, %680 : tensor<16x128xf32>
    %899 = stablehlo.negate %898 : tensor<16x128xf32>
    %900 = stablehlo.multiply %899, %667 : tensor<16x128xf32>
    %901 = stablehlo.add %897, %900 : tensor<16x128xf32>
    %cst_222 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %902 = stablehlo.broadcast_in_dim %cst_222, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %903 = stablehlo.divide %898, %902 : tensor<16x128xf32>
    %904 = stablehlo.broadcast_in_dim %903, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %cst_223 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %905 = stablehlo.broadcast_in_dim %cst_223, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %906 = stablehlo.divide %901, %905 : tensor<16x128xf32>
    %907 = stablehlo.broadcast_in_dim %906, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %908 = stablehlo.add %895, %907 : tensor<16x128x256xf32>
    %909 = stablehlo.multiply %904, %658 : tensor<16x128x256xf32>
    %910 = stablehlo.add %908, %909 : tensor<16x128x256xf32>
    %cst_224 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %911 = stablehlo.reduce(%910 init: %cst_224) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %912 = stablehlo.reshape %911 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_225 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %913 = stablehlo.reduce(%912 init: %cst_225) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %914 = stablehlo.dot_general %910, %649, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<16x128x256xf32>) -> tensor<256x256xf32>
    %915 = stablehlo.transpose %914, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %916 = stablehlo.dot_general %910, %650, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x256xf32>) -> tensor<16x128x256xf32>
    %917 = stablehlo.transpose %915, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %918 = stablehlo.reshape %916 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %919 = stablehlo.transpose %918, dims = [0, 2, 3, 1] : (tensor<16x128x4x64xf32>) -> tensor<16x4x64x128xf32>
    %920 = stablehlo.dot_general %919, %609, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x4x64x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x128xf32>
    %921 = stablehlo.dot_general %919, %643, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<16x4x64x128xf32>, tensor<16x4x128x128xf32>) -> tensor<16x4x64x128xf32>
    %922 = stablehlo.transpose %921, dims = [0, 3, 1, 2] : (tensor<16x4x64x128xf32>) -> tensor<16x128x4x64xf32>
    %923 = stablehlo.broadcast_in_dim %646, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %924 = stablehlo.multiply %920, %923 : tensor<16x4x128x128xf32>
    %925 = stablehlo.multiply %924, %639 : tensor<16x4x128x128xf32>
    %cst_226 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %926 = stablehlo.reduce(%925 init: %cst_226) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %927 = stablehlo.reshape %926 : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %928 = stablehlo.negate %927 : tensor<16x4x128x1xf32>
    %929 = stablehlo.broadcast_in_dim %641, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %930 = stablehlo.divide %920, %929 : tensor<16x4x128x128xf32>
    %cst_227 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %931 = stablehlo.reduce(%928 init: %cst_227) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x1xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %932 = stablehlo.broadcast_in_dim %931, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x128xf32>
    %933 = stablehlo.add %930, %932 : tensor<16x4x128x128xf32>
    %934 = stablehlo.multiply %933, %639 : tensor<16x4x128x128xf32>
    %935 = stablehlo.dot_general %934, %629, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4x128x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x64xf32>
    %936 = stablehlo.transpose %935, dims = [0, 2, 1, 3] : (tensor<16x4x128x64xf32>) -> tensor<16x128x4x64xf32>
    %937 = stablehlo.dot_general %934, %608, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4x128x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x64xf32>
    %938 = stablehlo.transpose %937, dims = [0, 2, 1, 3] : (tensor<16x4x128x64xf32>) -> tensor<16x128x4x64xf32>
    %939 = stablehlo.broadcast_in_dim %627, dims = [] : (tensor<f32>) -> tensor<16x128x4x64xf32>
    %940 = stablehlo.divide %938, %939 : tensor<16x128x4x64xf32>
    %941 = stablehlo.reshape %922 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %942 = stablehlo.reshape %936 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %943 = stablehlo.reshape %940 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %944 = stablehlo.concatenate %943, %942, %941, dim = 2 : (tensor<16x128x256xf32>, tensor<16x128x256xf32>, tensor<16x128x256xf32>) -> tensor<16x128x768xf32>
    %cst_228 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %945 = stablehlo.reduce(%944 init: %cst_228) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x768xf32>, tensor<f32>) -> tensor<768xf32>
    %946 = stablehlo.reshape %945 : (tensor<768xf32>) -> tensor<1x1x768xf32>
    %cst_229 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %947 = stablehlo.reduce(%946 init: %cst_229) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x768xf32>, tensor<f32>) -> tensor<768xf32>
    %948 = stablehlo.dot_general %944, %590, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x768xf32>, tensor<16x128x256xf32>) -> tensor<768x256xf32>
    %949 = stablehlo.transpose %948, dims = [1, 0] : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %950 = stablehlo.dot_general %944, %599, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x768xf32>, tensor<256x768xf32>) -> tensor<16x128x256xf32>
    %951 = stablehlo.transpose %949, dims = [1, 0] : (tensor<256x768xf32>) -> tensor<768x256xf32>
    %cst_230 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %952 = stablehlo.reduce(%950 init: %cst_230) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %953 = stablehlo.reshape %952 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %954 = stablehlo.reshape %953 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %955 = stablehlo.multiply %576, %950 : tensor<16x128x256xf32>
    %956 = stablehlo.multiply %950, %586 : tensor<16x128x256xf32>
    %957 = stablehlo.broadcast_in_dim %579, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %958 = stablehlo.multiply %957, %955 : tensor<16x128x256xf32>
    %cst_231 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %959 = stablehlo.reduce(%958 init: %cst_231) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %960 = stablehlo.reshape %959 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %961 = stablehlo.broadcast_in_dim %583, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %962 = stablehlo.multiply %955, %961 : tensor<16x128x256xf32>
    %cst_232 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %963 = stablehlo.reduce(%962 init: %cst_232) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %964 = stablehlo.reshape %963 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %965 = stablehlo.reshape %960 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %966 = stablehlo.multiply %964, %582 : tensor<16x128x1xf32>
    %967 = stablehlo.negate %956 : tensor<16x128x256xf32>
    %cst_233 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %968 = stablehlo.reduce(%967 init: %cst_233) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %969 = stablehlo.reshape %968 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %970 = stablehlo.add %910, %956 : tensor<16x128x256xf32>
    %cst_234 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %971 = stablehlo.reduce(%966 init: %cst_234) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_235 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %972 = stablehlo.reduce(%969 init: %cst_235) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %973 = stablehlo.multiply %971, %572 : tensor<16x128xf32>
    %974 = stablehlo.negate %973 : tensor<16x128xf32>
    %975 = stablehlo.multiply %974, %559 : tensor<16x128xf32>
    %976 = stablehlo.add %972, %975 : tensor<16x128xf32>
    %cst_236 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %977 = stablehlo.broadcast_in_dim %cst_236, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %978 = stablehlo.divide %973, %977 : tensor<16x128xf32>
    %979 = stablehlo.broadcast_in_dim %978, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %cst_237 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %980 = stablehlo.broadcast_in_dim %cst_237, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %981 = stablehlo.divide %976, %980 : tensor<16x128xf32>
    %982 = stablehlo.broadcast_in_dim %981, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %983 = stablehlo.add %970, %982 : tensor<16x128x256xf32>
    %984 = stablehlo.multiply %979, %550 : tensor<16x128x256xf32>
    %985 = stablehlo.add %983, %984 : tensor<16x128x256xf32>
    %cst_238 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %986 = stablehlo.reduce(%985 init: %cst_238) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %987 = stablehlo.reshape %986 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_239 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %988 = stablehlo.reduce(%987 init: %cst_239) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %989 = stablehlo.dot_general %985, %541, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<16x128x1024xf32>) -> tensor<256x1024xf32>
    %990 = stablehlo.transpose %989, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %991 = stablehlo.dot_general %985, %542, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<1024x256xf32>) -> tensor<16x128x1024xf32>
    %992 = stablehlo.transpose %990, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %993 = stablehlo.multiply %523, %991 : tensor<16x128x1024xf32>
    %994 = stablehlo.multiply %991, %540 : tensor<16x128x1024xf32>
    %cst_240 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %995 = stablehlo.broadcast_in_dim %cst_240, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %996 = stablehlo.multiply %995, %993 : tensor<16x128x1024xf32>
    %997 = stablehlo.multiply %996, %536 : tensor<16x128x1024xf32>
    %998 = stablehlo.multiply %997, %534 : tensor<16x128x1024xf32>
    %999 = stablehlo.add %997, %998 : tensor<16x128x1024xf32>
    %cst_241 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %1000 = stablehlo.broadcast_in_dim %cst_241, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %1001 = stablehlo.multiply %1000, %999 : tensor<16x128x1024xf32>
    %1002 = stablehlo.add %994, %1001 : tensor<16x128x1024xf32>
    %cst_242 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %1003 = stablehlo.broadcast_in_dim %cst_242, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %1004 = stablehlo.multiply %1003, %1001 : tensor<16x128x1024xf32>
    %1005 = stablehlo.multiply %1004, %528 : tensor<16x128x1024xf32>
    %1006 = stablehlo.add %1002, %1005 : tensor<16x128x1024xf32>
    %cst_243 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1007 = stablehlo.reduce(%1006 init: %cst_243) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %1008 = stablehlo.reshape %1007 : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %cst_244 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1009 = stablehlo.reduce(%1008 init: %cst_244) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %1010 = stablehlo.dot_general %1006, %518, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<16x128x256xf32>) -> tensor<1024x256xf32>
    %1011 = stablehlo.transpose %1010, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %1012 = stablehlo.dot_general %1006, %519, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<256x1024xf32>) -> tensor<16x128x256xf32>
    %1013 = stablehlo.transpose %1011, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %cst_245 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1014 = stablehlo.reduce(%1012 init: %cst_245) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1015 = stablehlo.reshape %1014 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1016 = stablehlo.reshape %1015 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1017 = stablehlo.multiply %504, %1012 : tensor<16x128x256xf32>
    %1018 = stablehlo.multiply %1012, %514 : tensor<16x128x256xf32>
    %1019 = stablehlo.broadcast_in_dim %507, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %1020 = stablehlo.multiply %1019, %1017 : tensor<16x128x256xf32>
    %cst_246 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1021 = stablehlo.reduce(%1020 init: %cst_246) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1022 = stablehlo.reshape %1021 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1023 = stablehlo.broadcast_in_dim %511, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %1024 = stablehlo.multiply %1017, %1023 : tensor<16x128x256xf32>
    %cst_247 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1025 = stablehlo.reduce(%1024 init: %cst_247) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1026 = stablehlo.reshape %1025 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1027 = stablehlo.reshape %1022 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1028 = stablehlo.multiply %1026, %510 : tensor<16x128x1xf32>
    %1029 = stablehlo.negate %1018 : tensor<16x128x256xf32>
    %cst_248 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1030 = stablehlo.reduce(%1029 init: %cst_248) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1031 = stablehlo.reshape %1030 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1032 = stablehlo.add %985, %1018 : tensor<16x128x256xf32>
    %cst_249 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1033 = stablehlo.reduce(%1028 init: %cst_249) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_250 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1034 = stablehlo.reduce(%1031 init: %cst_250) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1035 = stablehlo.multiply %1033, %500 : tensor<16x128xf32>
    %1036 = stablehlo.negate %1035 : tensor<16x128xf32>
    %1037 = stablehlo.multiply %1036, %487 : tensor<16x128xf32>
    %1038 = stablehlo.add %1034, %1037 : tensor<16x128xf32>
    %cst_251 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1039 = stablehlo.broadcast_in_dim %cst_251, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1040 = stablehlo.divide %1035, %1039 : tensor<16x128xf32>
    %1041 = stablehlo.broadcast_in_dim %1040, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %cst_252 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1042 = stablehlo.broadcast_in_dim %cst_252, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1043 = stablehlo.divide %1038, %1042 : tensor<16x128xf32>
    %1044 = stablehlo.broadcast_in_dim %1043, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %1045 = stablehlo.add %1032, %1044 : tensor<16x128x256xf32>
    %1046 = stablehlo.multiply %1041, %478 : tensor<16x128x256xf32>
    %1047 = stablehlo.add %1045, %1046 : tensor<16x128x256xf32>
    %cst_253 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1048 = stablehlo.reduce(%1047 init: %cst_253) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1049 = stablehlo.reshape %1048 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_254 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1050 = stablehlo.reduce(%1049 init: %cst_254) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1051 = stablehlo.dot_general %1047, %469, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<16x128x256xf32>) -> tensor<256x256xf32>
    %1052 = stablehlo.transpose %1051, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %1053 = stablehlo.dot_general %1047, %470, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x256xf32>) -> tensor<16x128x256xf32>
    %1054 = stablehlo.transpose %1052, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %1055 = stablehlo.reshape %1053 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %1056 = stablehlo.transpose %1055, dims = [0, 2, 3, 1] : (tensor<16x128x4x64xf32>) -> tensor<16x4x64x128xf32>
    %1057 = stablehlo.dot_general %1056, %429, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x4x64x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x128xf32>
    %1058 = stablehlo.dot_general %1056, %463, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<16x4x64x128xf32>, tensor<16x4x128x128xf32>) -> tensor<16x4x64x128xf32>
    %1059 = stablehlo.transpose %1058, dims = [0, 3, 1, 2] : (tensor<16x4x64x128xf32>) -> tensor<16x128x4x64xf32>
    %1060 = stablehlo.broadcast_in_dim %466, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %1061 = stablehlo.multiply %1057, %1060 : tensor<16x4x128x128xf32>
    %1062 = stablehlo.multiply %1061, %459 : tensor<16x4x128x128xf32>
    %cst_255 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1063 = stablehlo.reduce(%1062 init: %cst_255) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %1064 = stablehlo.reshape %1063 : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %1065 = stablehlo.negate %1064 : tensor<16x4x128x1xf32>
    %1066 = stablehlo.broadcast_in_dim %461, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %1067 = stablehlo.divide %1057, %1066 : tensor<16x4x128x128xf32>
    %cst_256 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1068 = stablehlo.reduce(%1065 init: %cst_256) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x1xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %1069 = stablehlo.broadcast_in_dim %1068, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x128xf32>
    %1070 = stablehlo.add %1067, %1069 : tensor<16x4x128x128xf32>
    %1071 = stablehlo.multiply %1070, %459 : tensor<16x4x128x128xf32>
    %1072 = stablehlo.dot_general %1071, %449, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4x128x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x64xf32>
    %1073 = stablehlo.transpose %1072, dims = [0, 2, 1, 3] : (tensor<16x4x128x64xf32>) -> tensor<16x128x4x64xf32>
    %1074 = stablehlo.dot_general %1071, %428, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4x128x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x64xf32>
    %1075 = stablehlo.transpose %1074, dims = [0, 2, 1, 3] : (tensor<16x4x128x64xf32>) -> tensor<16x128x4x64xf32>
    %1076 = stablehlo.broadcast_in_dim %447, dims = [] : (tensor<f32>) -> tensor<16x128x4x64xf32>
    %1077 = stablehlo.divide %1075, %1076 : tensor<16x128x4x64xf32>
    %1078 = stablehlo.reshape %1059 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %1079 = stablehlo.reshape %1073 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %1080 = stablehlo.reshape %1077 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %1081 = stablehlo.concatenate %1080, %1079, %1078, dim = 2 : (tensor<16x128x256xf32>, tensor<16x128x256xf32>, tensor<16x128x256xf32>) -> tensor<16x128x768xf32>
    %cst_257 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1082 = stablehlo.reduce(%1081 init: %cst_257) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x768xf32>, tensor<f32>) -> tensor<768xf32>
    %1083 = stablehlo.reshape %1082 : (tensor<768xf32>) -> tensor<1x1x768xf32>
    %cst_258 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1084 = stablehlo.reduce(%1083 init: %cst_258) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x768xf32>, tensor<f32>) -> tensor<768xf32>
    %1085 = stablehlo.dot_general %1081, %410, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x768xf32>, tensor<16x128x256xf32>) -> tensor<768x256xf32>
    %1086 = stablehlo.transpose %1085, dims = [1, 0] : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %1087 = stablehlo.dot_general %1081, %419, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x768xf32>, tensor<256x768xf32>) -> tensor<16x128x256xf32>
    %1088 = stablehlo.transpose %1086, dims = [1, 0] : (tensor<256x768xf32>) -> tensor<768x256xf32>
    %cst_259 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1089 = stablehlo.reduce(%1087 init: %cst_259) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1090 = stablehlo.reshape %1089 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1091 = stablehlo.reshape %1090 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1092 = stablehlo.multiply %396, %1087 : tensor<16x128x256xf32>
    %1093 = stablehlo.multiply %1087, %406 : tensor<16x128x256xf32>
    %1094 = stablehlo.broadcast_in_dim %399, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %1095 = stablehlo.multiply %1094, %1092 : tensor<16x128x256xf32>
    %cst_260 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1096 = stablehlo.reduce(%1095 init: %cst_260) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1097 = stablehlo.reshape %1096 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1098 = stablehlo.broadcast_in_dim %403, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %1099 = stablehlo.multiply %1092, %1098 : tensor<16x128x256xf32>
    %cst_261 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1100 = stablehlo.reduce(%1099 init: %cst_261) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1101 = stablehlo.reshape %1100 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1102 = stablehlo.reshape %1097 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1103 = stablehlo.multiply %1101, %402 : tensor<16x128x1xf32>
    %1104 = stablehlo.negate %1093 : tensor<16x128x256xf32>
    %cst_262 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1105 = stablehlo.reduce(%1104 init: %cst_262) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1106 = stablehlo.reshape %1105 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1107 = stablehlo.add %1047, %1093 : tensor<16x128x256xf32>
    %cst_263 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1108 = stablehlo.reduce(%1103 init: %cst_263) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_264 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1109 = stablehlo.reduce(%1106 init: %cst_264) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1110 = stablehlo.multiply %1108, %392 : tensor<16x128xf32>
    %1111 = stablehlo.negate %1110 : tensor<16x128xf32>
    %1112 = stablehlo.multiply %1111, %379 : tensor<16x128xf32>
    %1113 = stablehlo.add %1109, %1112 : tensor<16x128xf32>
    %cst_265 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1114 = stablehlo.broadcast_in_dim %cst_265, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1115 = stablehlo.divide %1110, %1114 : tensor<16x128xf32>
    %1116 = stablehlo.broadcast_in_dim %1115, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %cst_266 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1117 = stablehlo.broadcast_in_dim %cst_266, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1118 = stablehlo.divide %1113, %1117 : tensor<16x128xf32>
    %1119 = stablehlo.broadcast_in_dim %1118, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %1120 = stablehlo.add %1107, %1119 : tensor<16x128x256xf32>
    %1121 = stablehlo.multiply %1116, %370 : tensor<16x128x256xf32>
    %1122 = stablehlo.add %1120, %1121 : tensor<16x128x256xf32>
    %cst_267 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1123 = stablehlo.reduce(%1122 init: %cst_267) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1124 = stablehlo.reshape %1123 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_268 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1125 = stablehlo.reduce(%1124 init: %cst_268) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1126 = stablehlo.dot_general %1122, %361, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<16x128x1024xf32>) -> tensor<256x1024xf32>
    %1127 = stablehlo.transpose %1126, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %1128 = stablehlo.dot_general %1122, %362, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<1024x256xf32>) -> tensor<16x128x1024xf32>
    %1129 = stablehlo.transpose %1127, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %1130 = stablehlo.multiply %343, %1128 : tensor<16x128x1024xf32>
    %1131 = stablehlo.multiply %1128, %360 : tensor<16x128x1024xf32>
    %cst_269 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1132 = stablehlo.broadcast_in_dim %cst_269, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %1133 = stablehlo.multiply %1132, %1130 : tensor<16x128x1024xf32>
    %1134 = stablehlo.multiply %1133, %356 : tensor<16x128x1024xf32>
    %1135 = stablehlo.multiply %1134, %354 : tensor<16x128x1024xf32>
    %1136 = stablehlo.add %1134, %1135 : tensor<16x128x1024xf32>
    %cst_270 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %1137 = stablehlo.broadcast_in_dim %cst_270, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %1138 = stablehlo.multiply %1137, %1136 : tensor<16x128x1024xf32>
    %1139 = stablehlo.add %1131, %1138 : tensor<16x128x1024xf32>
    %cst_271 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %1140 = stablehlo.broadcast_in_dim %cst_271, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %1141 = stablehlo.multiply %1140, %1138 : tensor<16x128x1024xf32>
    %1142 = stablehlo.multiply %1141, %348 : tensor<16x128x1024xf32>
    %1143 = stablehlo.add %1139, %1142 : tensor<16x128x1024xf32>
    %cst_272 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1144 = stablehlo.reduce(%1143 init: %cst_272) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %1145 = stablehlo.reshape %1144 : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %cst_273 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1146 = stablehlo.reduce(%1145 init: %cst_273) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %1147 = stablehlo.dot_general %1143, %338, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<16x128x256xf32>) -> tensor<1024x256xf32>
    %1148 = stablehlo.transpose %1147, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %1149 = stablehlo.dot_general %1143, %339, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<256x1024xf32>) -> tensor<16x128x256xf32>
    %1150 = stablehlo.transpose %1148, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %cst_274 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1151 = stablehlo.reduce(%1149 init: %cst_274) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1152 = stablehlo.reshape %1151 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1153 = stablehlo.reshape %1152 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1154 = stablehlo.multiply %324, %1149 : tensor<16x128x256xf32>
    %1155 = stablehlo.multiply %1149, %334 : tensor<16x128x256xf32>
    %1156 = stablehlo.broadcast_in_dim %327, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %1157 = stablehlo.multiply %1156, %1154 : tensor<16x128x256xf32>
    %cst_275 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1158 = stablehlo.reduce(%1157 init: %cst_275) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1159 = stablehlo.reshape %1158 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1160 = stablehlo.broadcast_in_dim %331, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %1161 = stablehlo.multiply %1154, %1160 : tensor<16x128x256xf32>
    %cst_276 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1162 = stablehlo.reduce(%1161 init: %cst_276) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1163 = stablehlo.reshape %1162 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1164 = stablehlo.reshape %1159 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1165 = stablehlo.multiply %1163, %330 : tensor<16x128x1xf32>
    %1166 = stablehlo.negate %1155 : tensor<16x128x256xf32>
    %cst_277 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1167 = stablehlo.reduce(%1166 init: %cst_277) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1168 = stablehlo.reshape %1167 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1169 = stablehlo.add %1122, %1155 : tensor<16x128x256xf32>
    %cst_278 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1170 = stablehlo.reduce(%1165 init: %cst_278) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_279 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1171 = stablehlo.reduce(%1168 init: %cst_279) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1172 = stablehlo.multiply %1170, %320 : tensor<16x128xf32>
    %1173 = stablehlo.negate %1172 : tensor<16x128xf32>
    %1174 = stablehlo.multiply %1173, %307 : tensor<16x128xf32>
    %1175 = stablehlo.add %1171, %1174 : tensor<16x128xf32>
    %cst_280 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1176 = stablehlo.broadcast_in_dim %cst_280, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1177 = stablehlo.divide %1172, %1176 : tensor<16x128xf32>
    %1178 = stablehlo.broadcast_in_dim %1177, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %cst_281 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1179 = stablehlo.broadcast_in_dim %cst_281, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1180 = stablehlo.divide %1175, %1179 : tensor<16x128xf32>
    %1181 = stablehlo.broadcast_in_dim %1180, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %1182 = stablehlo.add %1169, %1181 : tensor<16x128x256xf32>
    %1183 = stablehlo.multiply %1178, %298 : tensor<16x128x256xf32>
    %1184 = stablehlo.add %1182, %1183 : tensor<16x128x256xf32>
    %cst_282 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1185 = stablehlo.reduce(%1184 init: %cst_282) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1186 = stablehlo.reshape %1185 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_283 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1187 = stablehlo.reduce(%1186 init: %cst_283) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1188 = stablehlo.dot_general %1184, %289, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<16x128x256xf32>) -> tensor<256x256xf32>
    %1189 = stablehlo.transpose %1188, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %1190 = stablehlo.dot_general %1184, %290, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x256xf32>) -> tensor<16x128x256xf32>
    %1191 = stablehlo.transpose %1189, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %1192 = stablehlo.reshape %1190 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %1193 = stablehlo.transpose %1192, dims = [0, 2, 3, 1] : (tensor<16x128x4x64xf32>) -> tensor<16x4x64x128xf32>
    %1194 = stablehlo.dot_general %1193, %249, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x4x64x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x128xf32>
    %1195 = stablehlo.dot_general %1193, %283, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<16x4x64x128xf32>, tensor<16x4x128x128xf32>) -> tensor<16x4x64x128xf32>
    %1196 = stablehlo.transpose %1195, dims = [0, 3, 1, 2] : (tensor<16x4x64x128xf32>) -> tensor<16x128x4x64xf32>
    %1197 = stablehlo.broadcast_in_dim %286, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %1198 = stablehlo.multiply %1194, %1197 : tensor<16x4x128x128xf32>
    %1199 = stablehlo.multiply %1198, %279 : tensor<16x4x128x128xf32>
    %cst_284 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1200 = stablehlo.reduce(%1199 init: %cst_284) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %1201 = stablehlo.reshape %1200 : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %1202 = stablehlo.negate %1201 : tensor<16x4x128x1xf32>
    %1203 = stablehlo.broadcast_in_dim %281, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %1204 = stablehlo.divide %1194, %1203 : tensor<16x4x128x128xf32>
    %cst_285 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1205 = stablehlo.reduce(%1202 init: %cst_285) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x1xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %1206 = stablehlo.broadcast_in_dim %1205, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x128xf32>
    %1207 = stablehlo.add %1204, %1206 : tensor<16x4x128x128xf32>
    %1208 = stablehlo.multiply %1207, %279 : tensor<16x4x128x128xf32>
    %1209 = stablehlo.dot_general %1208, %269, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4x128x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x64xf32>
    %1210 = stablehlo.transpose %1209, dims = [0, 2, 1, 3] : (tensor<16x4x128x64xf32>) -> tensor<16x128x4x64xf32>
    %1211 = stablehlo.dot_general %1208, %248, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4x128x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x64xf32>
    %1212 = stablehlo.transpose %1211, dims = [0, 2, 1, 3] : (tensor<16x4x128x64xf32>) -> tensor<16x128x4x64xf32>
    %1213 = stablehlo.broadcast_in_dim %267, dims = [] : (tensor<f32>) -> tensor<16x128x4x64xf32>
    %1214 = stablehlo.divide %1212, %1213 : tensor<16x128x4x64xf32>
    %1215 = stablehlo.reshape %1196 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %1216 = stablehlo.reshape %1210 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %1217 = stablehlo.reshape %1214 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %1218 = stablehlo.concatenate %1217, %1216, %1215, dim = 2 : (tensor<16x128x256xf32>, tensor<16x128x256xf32>, tensor<16x128x256xf32>) -> tensor<16x128x768xf32>
    %cst_286 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1219 = stablehlo.reduce(%1218 init: %cst_286) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x768xf32>, tensor<f32>) -> tensor<768xf32>
    %1220 = stablehlo.reshape %1219 : (tensor<768xf32>) -> tensor<1x1x768xf32>
    %cst_287 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1221 = stablehlo.reduce(%1220 init: %cst_287) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x768xf32>, tensor<f32>) -> tensor<768xf32>
    %1222 = stablehlo.dot_general %1218, %230, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x768xf32>, tensor<16x128x256xf32>) -> tensor<768x256xf32>
    %1223 = stablehlo.transpose %1222, dims = [1, 0] : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %1224 = stablehlo.dot_general %1218, %239, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x768xf32>, tensor<256x768xf32>) -> tensor<16x128x256xf32>
    %1225 = stablehlo.transpose %1223, dims = [1, 0] : (tensor<256x768xf32>) -> tensor<768x256xf32>
    %cst_288 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1226 = stablehlo.reduce(%1224 init: %cst_288) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1227 = stablehlo.reshape %1226 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1228 = stablehlo.reshape %1227 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1229 = stablehlo.multiply %216, %1224 : tensor<16x128x256xf32>
    %1230 = stablehlo.multiply %1224, %226 : tensor<16x128x256xf32>
    %1231 = stablehlo.broadcast_in_dim %219, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %1232 = stablehlo.multiply %1231, %1229 : tensor<16x128x256xf32>
    %cst_289 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1233 = stablehlo.reduce(%1232 init: %cst_289) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1234 = stablehlo.reshape %1233 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1235 = stablehlo.broadcast_in_dim %223, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %1236 = stablehlo.multiply %1229, %1235 : tensor<16x128x256xf32>
    %cst_290 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1237 = stablehlo.reduce(%1236 init: %cst_290) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1238 = stablehlo.reshape %1237 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1239 = stablehlo.reshape %1234 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1240 = stablehlo.multiply %1238, %222 : tensor<16x128x1xf32>
    %1241 = stablehlo.negate %1230 : tensor<16x128x256xf32>
    %cst_291 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1242 = stablehlo.reduce(%1241 init: %cst_291) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1243 = stablehlo.reshape %1242 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1244 = stablehlo.add %1184, %1230 : tensor<16x128x256xf32>
    %cst_292 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1245 = stablehlo.reduce(%1240 init: %cst_292) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_293 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1246 = stablehlo.reduce(%1243 init: %cst_293) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1247 = stablehlo.multiply %1245, %212 : tensor<16x128xf32>
    %1248 = stablehlo.negate %1247 : tensor<16x128xf32>
    %1249 = stablehlo.multiply %1248, %199 : tensor<16x128xf32>
    %1250 = stablehlo.add %1246, %1249 : tensor<16x128xf32>
    %cst_294 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1251 = stablehlo.broadcast_in_dim %cst_294, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1252 = stablehlo.divide %1247, %1251 : tensor<16x128xf32>
    %1253 = stablehlo.broadcast_in_dim %1252, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %cst_295 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1254 = stablehlo.broadcast_in_dim %cst_295, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1255 = stablehlo.divide %1250, %1254 : tensor<16x128xf32>
    %1256 = stablehlo.broadcast_in_dim %1255, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %1257 = stablehlo.add %1244, %1256 : tensor<16x128x256xf32>
    %1258 = stablehlo.multiply %1253, %190 : tensor<16x128x256xf32>
    %1259 = stablehlo.add %1257, %1258 : tensor<16x128x256xf32>
    %cst_296 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1260 = stablehlo.reduce(%1259 init: %cst_296) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1261 = stablehlo.reshape %1260 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_297 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1262 = stablehlo.reduce(%1261 init: %cst_297) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1263 = stablehlo.dot_general %1259, %181, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<16x128x1024xf32>) -> tensor<256x1024xf32>
    %1264 = stablehlo.transpose %1263, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %1265 = stablehlo.dot_general %1259, %182, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<1024x256xf32>) -> tensor<16x128x1024xf32>
    %1266 = stablehlo.transpose %1264, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %1267 = stablehlo.multiply %163, %1265 : tensor<16x128x1024xf32>
    %1268 = stablehlo.multiply %1265, %180 : tensor<16x128x1024xf32>
    %cst_298 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1269 = stablehlo.broadcast_in_dim %cst_298, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %1270 = stablehlo.multiply %1269, %1267 : tensor<16x128x1024xf32>
    %1271 = stablehlo.multiply %1270, %176 : tensor<16x128x1024xf32>
    %1272 = stablehlo.multiply %1271, %174 : tensor<16x128x1024xf32>
    %1273 = stablehlo.add %1271, %1272 : tensor<16x128x1024xf32>
    %cst_299 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %1274 = stablehlo.broadcast_in_dim %cst_299, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %1275 = stablehlo.multiply %1274, %1273 : tensor<16x128x1024xf32>
    %1276 = stablehlo.add %1268, %1275 : tensor<16x128x1024xf32>
    %cst_300 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %1277 = stablehlo.broadcast_in_dim %cst_300, dims = [] : (tensor<f32>) -> tensor<16x128x1024xf32>
    %1278 = stablehlo.multiply %1277, %1275 : tensor<16x128x1024xf32>
    %1279 = stablehlo.multiply %1278, %168 : tensor<16x128x1024xf32>
    %1280 = stablehlo.add %1276, %1279 : tensor<16x128x1024xf32>
    %cst_301 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1281 = stablehlo.reduce(%1280 init: %cst_301) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %1282 = stablehlo.reshape %1281 : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %cst_302 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1283 = stablehlo.reduce(%1282 init: %cst_302) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %1284 = stablehlo.dot_general %1280, %158, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<16x128x256xf32>) -> tensor<1024x256xf32>
    %1285 = stablehlo.transpose %1284, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %1286 = stablehlo.dot_general %1280, %159, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x1024xf32>, tensor<256x1024xf32>) -> tensor<16x128x256xf32>
    %1287 = stablehlo.transpose %1285, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %cst_303 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1288 = stablehlo.reduce(%1286 init: %cst_303) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1289 = stablehlo.reshape %1288 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1290 = stablehlo.reshape %1289 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1291 = stablehlo.multiply %144, %1286 : tensor<16x128x256xf32>
    %1292 = stablehlo.multiply %1286, %154 : tensor<16x128x256xf32>
    %1293 = stablehlo.broadcast_in_dim %147, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %1294 = stablehlo.multiply %1293, %1291 : tensor<16x128x256xf32>
    %cst_304 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1295 = stablehlo.reduce(%1294 init: %cst_304) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1296 = stablehlo.reshape %1295 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1297 = stablehlo.broadcast_in_dim %151, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %1298 = stablehlo.multiply %1291, %1297 : tensor<16x128x256xf32>
    %cst_305 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1299 = stablehlo.reduce(%1298 init: %cst_305) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1300 = stablehlo.reshape %1299 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1301 = stablehlo.reshape %1296 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1302 = stablehlo.multiply %1300, %150 : tensor<16x128x1xf32>
    %1303 = stablehlo.negate %1292 : tensor<16x128x256xf32>
    %cst_306 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1304 = stablehlo.reduce(%1303 init: %cst_306) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1305 = stablehlo.reshape %1304 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1306 = stablehlo.add %1259, %1292 : tensor<16x128x256xf32>
    %cst_307 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1307 = stablehlo.reduce(%1302 init: %cst_307) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_308 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1308 = stablehlo.reduce(%1305 init: %cst_308) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1309 = stablehlo.multiply %1307, %140 : tensor<16x128xf32>
    %1310 = stablehlo.negate %1309 : tensor<16x128xf32>
    %1311 = stablehlo.multiply %1310, %127 : tensor<16x128xf32>
    %1312 = stablehlo.add %1308, %1311 : tensor<16x128xf32>
    %cst_309 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1313 = stablehlo.broadcast_in_dim %cst_309, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1314 = stablehlo.divide %1309, %1313 : tensor<16x128xf32>
    %1315 = stablehlo.broadcast_in_dim %1314, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %cst_310 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1316 = stablehlo.broadcast_in_dim %cst_310, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1317 = stablehlo.divide %1312, %1316 : tensor<16x128xf32>
    %1318 = stablehlo.broadcast_in_dim %1317, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %1319 = stablehlo.add %1306, %1318 : tensor<16x128x256xf32>
    %1320 = stablehlo.multiply %1315, %118 : tensor<16x128x256xf32>
    %1321 = stablehlo.add %1319, %1320 : tensor<16x128x256xf32>
    %cst_311 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1322 = stablehlo.reduce(%1321 init: %cst_311) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1323 = stablehlo.reshape %1322 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_312 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1324 = stablehlo.reduce(%1323 init: %cst_312) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1325 = stablehlo.dot_general %1321, %109, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<16x128x256xf32>) -> tensor<256x256xf32>
    %1326 = stablehlo.transpose %1325, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %1327 = stablehlo.dot_general %1321, %110, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x256xf32>, tensor<256x256xf32>) -> tensor<16x128x256xf32>
    %1328 = stablehlo.transpose %1326, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %1329 = stablehlo.reshape %1327 : (tensor<16x128x256xf32>) -> tensor<16x128x4x64xf32>
    %1330 = stablehlo.transpose %1329, dims = [0, 2, 3, 1] : (tensor<16x128x4x64xf32>) -> tensor<16x4x64x128xf32>
    %1331 = stablehlo.dot_general %1330, %69, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<16x4x64x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x128xf32>
    %1332 = stablehlo.dot_general %1330, %103, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<16x4x64x128xf32>, tensor<16x4x128x128xf32>) -> tensor<16x4x64x128xf32>
    %1333 = stablehlo.transpose %1332, dims = [0, 3, 1, 2] : (tensor<16x4x64x128xf32>) -> tensor<16x128x4x64xf32>
    %1334 = stablehlo.broadcast_in_dim %106, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %1335 = stablehlo.multiply %1331, %1334 : tensor<16x4x128x128xf32>
    %1336 = stablehlo.multiply %1335, %99 : tensor<16x4x128x128xf32>
    %cst_313 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1337 = stablehlo.reduce(%1336 init: %cst_313) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x128xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %1338 = stablehlo.reshape %1337 : (tensor<16x4x128xf32>) -> tensor<16x4x128x1xf32>
    %1339 = stablehlo.negate %1338 : tensor<16x4x128x1xf32>
    %1340 = stablehlo.broadcast_in_dim %101, dims = [0, 1, 2, 3] : (tensor<16x4x128x1xf32>) -> tensor<16x4x128x128xf32>
    %1341 = stablehlo.divide %1331, %1340 : tensor<16x4x128x128xf32>
    %cst_314 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1342 = stablehlo.reduce(%1339 init: %cst_314) applies stablehlo.add across dimensions = [3] : (tensor<16x4x128x1xf32>, tensor<f32>) -> tensor<16x4x128xf32>
    %1343 = stablehlo.broadcast_in_dim %1342, dims = [0, 1, 2] : (tensor<16x4x128xf32>) -> tensor<16x4x128x128xf32>
    %1344 = stablehlo.add %1341, %1343 : tensor<16x4x128x128xf32>
    %1345 = stablehlo.multiply %1344, %99 : tensor<16x4x128x128xf32>
    %1346 = stablehlo.dot_general %1345, %89, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4x128x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x64xf32>
    %1347 = stablehlo.transpose %1346, dims = [0, 2, 1, 3] : (tensor<16x4x128x64xf32>) -> tensor<16x128x4x64xf32>
    %1348 = stablehlo.dot_general %1345, %68, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4x128x128xf32>, tensor<16x128x4x64xf32>) -> tensor<16x4x128x64xf32>
    %1349 = stablehlo.transpose %1348, dims = [0, 2, 1, 3] : (tensor<16x4x128x64xf32>) -> tensor<16x128x4x64xf32>
    %1350 = stablehlo.broadcast_in_dim %87, dims = [] : (tensor<f32>) -> tensor<16x128x4x64xf32>
    %1351 = stablehlo.divide %1349, %1350 : tensor<16x128x4x64xf32>
    %1352 = stablehlo.reshape %1333 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %1353 = stablehlo.reshape %1347 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %1354 = stablehlo.reshape %1351 : (tensor<16x128x4x64xf32>) -> tensor<16x128x256xf32>
    %1355 = stablehlo.concatenate %1354, %1353, %1352, dim = 2 : (tensor<16x128x256xf32>, tensor<16x128x256xf32>, tensor<16x128x256xf32>) -> tensor<16x128x768xf32>
    %cst_315 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1356 = stablehlo.reduce(%1355 init: %cst_315) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x768xf32>, tensor<f32>) -> tensor<768xf32>
    %1357 = stablehlo.reshape %1356 : (tensor<768xf32>) -> tensor<1x1x768xf32>
    %cst_316 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1358 = stablehlo.reduce(%1357 init: %cst_316) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x768xf32>, tensor<f32>) -> tensor<768xf32>
    %1359 = stablehlo.dot_general %1355, %50, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x768xf32>, tensor<16x128x256xf32>) -> tensor<768x256xf32>
    %1360 = stablehlo.transpose %1359, dims = [1, 0] : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %1361 = stablehlo.dot_general %1355, %59, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128x768xf32>, tensor<256x768xf32>) -> tensor<16x128x256xf32>
    %1362 = stablehlo.transpose %1360, dims = [1, 0] : (tensor<256x768xf32>) -> tensor<768x256xf32>
    %cst_317 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1363 = stablehlo.reduce(%1361 init: %cst_317) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1364 = stablehlo.reshape %1363 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1365 = stablehlo.reshape %1364 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1366 = stablehlo.multiply %36, %1361 : tensor<16x128x256xf32>
    %1367 = stablehlo.multiply %1361, %46 : tensor<16x128x256xf32>
    %1368 = stablehlo.broadcast_in_dim %39, dims = [0, 1, 2] : (tensor<16x128x1xf32>) -> tensor<16x128x256xf32>
    %1369 = stablehlo.multiply %1368, %1366 : tensor<16x128x256xf32>
    %cst_318 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1370 = stablehlo.reduce(%1369 init: %cst_318) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %1371 = stablehlo.reshape %1370 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %1372 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<16x128x256xf32>
    %1373 = stablehlo.multiply %1366, %1372 : tensor<16x128x256xf32>
    %cst_319 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1374 = stablehlo.reduce(%1373 init: %cst_319) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1375 = stablehlo.reshape %1374 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1376 = stablehlo.reshape %1371 : (tensor<1x1x256xf32>) -> tensor<256xf32>
    %1377 = stablehlo.multiply %1375, %42 : tensor<16x128x1xf32>
    %1378 = stablehlo.negate %1367 : tensor<16x128x256xf32>
    %cst_320 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1379 = stablehlo.reduce(%1378 init: %cst_320) applies stablehlo.add across dimensions = [2] : (tensor<16x128x256xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1380 = stablehlo.reshape %1379 : (tensor<16x128xf32>) -> tensor<16x128x1xf32>
    %1381 = stablehlo.add %1321, %1367 : tensor<16x128x256xf32>
    %cst_321 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1382 = stablehlo.reduce(%1377 init: %cst_321) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %cst_322 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1383 = stablehlo.reduce(%1380 init: %cst_322) applies stablehlo.add across dimensions = [2] : (tensor<16x128x1xf32>, tensor<f32>) -> tensor<16x128xf32>
    %1384 = stablehlo.multiply %1382, %32 : tensor<16x128xf32>
    %1385 = stablehlo.negate %1384 : tensor<16x128xf32>
    %1386 = stablehlo.multiply %1385, %19 : tensor<16x128xf32>
    %1387 = stablehlo.add %1383, %1386 : tensor<16x128xf32>
    %cst_323 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1388 = stablehlo.broadcast_in_dim %cst_323, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1389 = stablehlo.divide %1384, %1388 : tensor<16x128xf32>
    %1390 = stablehlo.broadcast_in_dim %1389, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %cst_324 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %1391 = stablehlo.broadcast_in_dim %cst_324, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1392 = stablehlo.divide %1387, %1391 : tensor<16x128xf32>
    %1393 = stablehlo.broadcast_in_dim %1392, dims = [0, 1] : (tensor<16x128xf32>) -> tensor<16x128x256xf32>
    %1394 = stablehlo.add %1381, %1393 : tensor<16x128x256xf32>
    %1395 = stablehlo.multiply %1390, %10 : tensor<16x128x256xf32>
    %1396 = stablehlo.add %1394, %1395 : tensor<16x128x256xf32>
    %1397 = call @_take_5(%6#1, %1396) : (tensor<16x128x1xi32>, tensor<16x128x256xf32>) -> tensor<128x256xf32>
    %1398 = call @_take_6(%5#1, %1396) : (tensor<16x128x1xi32>, tensor<16x128x256xf32>) -> tensor<50257x256xf32>
    %1399 = stablehlo.add %815, %1398 : tensor<50257x256xf32>
    %cst_325 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1400 = stablehlo.broadcast_in_dim %cst_325, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1401 = stablehlo.multiply %1400, %1358 : tensor<768xf32>
    %cst_326 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1402 = stablehlo.broadcast_in_dim %cst_326, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1403 = stablehlo.multiply %1402, %arg53 : tensor<768xf32>
    %1404 = stablehlo.add %1401, %1403 : tensor<768xf32>
    %cst_327 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1405 = stablehlo.broadcast_in_dim %cst_327, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1406 = stablehlo.multiply %1405, %1362 : tensor<768x256xf32>
    %cst_328 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1407 = stablehlo.broadcast_in_dim %cst_328, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1408 = stablehlo.multiply %1407, %arg54 : tensor<768x256xf32>
    %1409 = stablehlo.add %1406, %1408 : tensor<768x256xf32>
    %cst_329 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1410 = stablehlo.broadcast_in_dim %cst_329, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1411 = stablehlo.multiply %1410, %1324 : tensor<256xf32>
    %cst_330 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1412 = stablehlo.broadcast_in_dim %cst_330, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1413 = stablehlo.multiply %1412, %arg55 : tensor<256xf32>
    %1414 = stablehlo.add %1411, %1413 : tensor<256xf32>
    %cst_331 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1415 = stablehlo.broadcast_in_dim %cst_331, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1416 = stablehlo.multiply %1415, %1328 : tensor<256x256xf32>
    %cst_332 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1417 = stablehlo.broadcast_in_dim %cst_332, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1418 = stablehlo.multiply %1417, %arg56 : tensor<256x256xf32>
    %1419 = stablehlo.add %1416, %1418 : tensor<256x256xf32>
    %cst_333 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1420 = stablehlo.broadcast_in_dim %cst_333, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1421 = stablehlo.multiply %1420, %1365 : tensor<256xf32>
    %cst_334 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1422 = stablehlo.broadcast_in_dim %cst_334, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1423 = stablehlo.multiply %1422, %arg57 : tensor<256xf32>
    %1424 = stablehlo.add %1421, %1423 : tensor<256xf32>
    %cst_335 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1425 = stablehlo.broadcast_in_dim %cst_335, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1426 = stablehlo.multiply %1425, %1376 : tensor<256xf32>
    %cst_336 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1427 = stablehlo.broadcast_in_dim %cst_336, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1428 = stablehlo.multiply %1427, %arg58 : tensor<256xf32>
    %1429 = stablehlo.add %1426, %1428 : tensor<256xf32>
    %cst_337 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1430 = stablehlo.broadcast_in_dim %cst_337, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1431 = stablehlo.multiply %1430, %1290 : tensor<256xf32>
    %cst_338 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1432 = stablehlo.broadcast_in_dim %cst_338, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1433 = stablehlo.multiply %1432, %arg59 : tensor<256xf32>
    %1434 = stablehlo.add %1431, %1433 : tensor<256xf32>
    %cst_339 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1435 = stablehlo.broadcast_in_dim %cst_339, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1436 = stablehlo.multiply %1435, %1301 : tensor<256xf32>
    %cst_340 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1437 = stablehlo.broadcast_in_dim %cst_340, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1438 = stablehlo.multiply %1437, %arg60 : tensor<256xf32>
    %1439 = stablehlo.add %1436, %1438 : tensor<256xf32>
    %cst_341 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1440 = stablehlo.broadcast_in_dim %cst_341, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1441 = stablehlo.multiply %1440, %1283 : tensor<1024xf32>
    %cst_342 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1442 = stablehlo.broadcast_in_dim %cst_342, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1443 = stablehlo.multiply %1442, %arg61 : tensor<1024xf32>
    %1444 = stablehlo.add %1441, %1443 : tensor<1024xf32>
    %cst_343 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1445 = stablehlo.broadcast_in_dim %cst_343, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1446 = stablehlo.multiply %1445, %1287 : tensor<1024x256xf32>
    %cst_344 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1447 = stablehlo.broadcast_in_dim %cst_344, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1448 = stablehlo.multiply %1447, %arg62 : tensor<1024x256xf32>
    %1449 = stablehlo.add %1446, %1448 : tensor<1024x256xf32>
    %cst_345 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1450 = stablehlo.broadcast_in_dim %cst_345, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1451 = stablehlo.multiply %1450, %1262 : tensor<256xf32>
    %cst_346 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1452 = stablehlo.broadcast_in_dim %cst_346, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1453 = stablehlo.multiply %1452, %arg63 : tensor<256xf32>
    %1454 = stablehlo.add %1451, %1453 : tensor<256xf32>
    %cst_347 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1455 = stablehlo.broadcast_in_dim %cst_347, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1456 = stablehlo.multiply %1455, %1266 : tensor<256x1024xf32>
    %cst_348 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1457 = stablehlo.broadcast_in_dim %cst_348, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1458 = stablehlo.multiply %1457, %arg64 : tensor<256x1024xf32>
    %1459 = stablehlo.add %1456, %1458 : tensor<256x1024xf32>
    %cst_349 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1460 = stablehlo.broadcast_in_dim %cst_349, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1461 = stablehlo.multiply %1460, %1221 : tensor<768xf32>
    %cst_350 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1462 = stablehlo.broadcast_in_dim %cst_350, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1463 = stablehlo.multiply %1462, %arg65 : tensor<768xf32>
    %1464 = stablehlo.add %1461, %1463 : tensor<768xf32>
    %cst_351 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1465 = stablehlo.broadcast_in_dim %cst_351, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1466 = stablehlo.multiply %1465, %1225 : tensor<768x256xf32>
    %cst_352 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1467 = stablehlo.broadcast_in_dim %cst_352, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1468 = stablehlo.multiply %1467, %arg66 : tensor<768x256xf32>
    %1469 = stablehlo.add %1466, %1468 : tensor<768x256xf32>
    %cst_353 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1470 = stablehlo.broadcast_in_dim %cst_353, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1471 = stablehlo.multiply %1470, %1187 : tensor<256xf32>
    %cst_354 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1472 = stablehlo.broadcast_in_dim %cst_354, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1473 = stablehlo.multiply %1472, %arg67 : tensor<256xf32>
    %1474 = stablehlo.add %1471, %1473 : tensor<256xf32>
    %cst_355 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1475 = stablehlo.broadcast_in_dim %cst_355, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1476 = stablehlo.multiply %1475, %1191 : tensor<256x256xf32>
    %cst_356 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1477 = stablehlo.broadcast_in_dim %cst_356, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1478 = stablehlo.multiply %1477, %arg68 : tensor<256x256xf32>
    %1479 = stablehlo.add %1476, %1478 : tensor<256x256xf32>
    %cst_357 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1480 = stablehlo.broadcast_in_dim %cst_357, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1481 = stablehlo.multiply %1480, %1228 : tensor<256xf32>
    %cst_358 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1482 = stablehlo.broadcast_in_dim %cst_358, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1483 = stablehlo.multiply %1482, %arg69 : tensor<256xf32>
    %1484 = stablehlo.add %1481, %1483 : tensor<256xf32>
    %cst_359 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1485 = stablehlo.broadcast_in_dim %cst_359, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1486 = stablehlo.multiply %1485, %1239 : tensor<256xf32>
    %cst_360 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1487 = stablehlo.broadcast_in_dim %cst_360, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1488 = stablehlo.multiply %1487, %arg70 : tensor<256xf32>
    %1489 = stablehlo.add %1486, %1488 : tensor<256xf32>
    %cst_361 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1490 = stablehlo.broadcast_in_dim %cst_361, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1491 = stablehlo.multiply %1490, %1153 : tensor<256xf32>
    %cst_362 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1492 = stablehlo.broadcast_in_dim %cst_362, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1493 = stablehlo.multiply %1492, %arg71 : tensor<256xf32>
    %1494 = stablehlo.add %1491, %1493 : tensor<256xf32>
    %cst_363 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1495 = stablehlo.broadcast_in_dim %cst_363, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1496 = stablehlo.multiply %1495, %1164 : tensor<256xf32>
    %cst_364 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1497 = stablehlo.broadcast_in_dim %cst_364, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1498 = stablehlo.multiply %1497, %arg72 : tensor<256xf32>
    %1499 = stablehlo.add %1496, %1498 : tensor<256xf32>
    %cst_365 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1500 = stablehlo.broadcast_in_dim %cst_365, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1501 = stablehlo.multiply %1500, %1146 : tensor<1024xf32>
    %cst_366 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1502 = stablehlo.broadcast_in_dim %cst_366, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1503 = stablehlo.multiply %1502, %arg73 : tensor<1024xf32>
    %1504 = stablehlo.add %1501, %1503 : tensor<1024xf32>
    %cst_367 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1505 = stablehlo.broadcast_in_dim %cst_367, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1506 = stablehlo.multiply %1505, %1150 : tensor<1024x256xf32>
    %cst_368 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1507 = stablehlo.broadcast_in_dim %cst_368, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1508 = stablehlo.multiply %1507, %arg74 : tensor<1024x256xf32>
    %1509 = stablehlo.add %1506, %1508 : tensor<1024x256xf32>
    %cst_369 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1510 = stablehlo.broadcast_in_dim %cst_369, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1511 = stablehlo.multiply %1510, %1125 : tensor<256xf32>
    %cst_370 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1512 = stablehlo.broadcast_in_dim %cst_370, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1513 = stablehlo.multiply %1512, %arg75 : tensor<256xf32>
    %1514 = stablehlo.add %1511, %1513 : tensor<256xf32>
    %cst_371 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1515 = stablehlo.broadcast_in_dim %cst_371, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1516 = stablehlo.multiply %1515, %1129 : tensor<256x1024xf32>
    %cst_372 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1517 = stablehlo.broadcast_in_dim %cst_372, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1518 = stablehlo.multiply %1517, %arg76 : tensor<256x1024xf32>
    %1519 = stablehlo.add %1516, %1518 : tensor<256x1024xf32>
    %cst_373 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1520 = stablehlo.broadcast_in_dim %cst_373, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1521 = stablehlo.multiply %1520, %1084 : tensor<768xf32>
    %cst_374 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1522 = stablehlo.broadcast_in_dim %cst_374, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1523 = stablehlo.multiply %1522, %arg77 : tensor<768xf32>
    %1524 = stablehlo.add %1521, %1523 : tensor<768xf32>
    %cst_375 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1525 = stablehlo.broadcast_in_dim %cst_375, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1526 = stablehlo.multiply %1525, %1088 : tensor<768x256xf32>
    %cst_376 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1527 = stablehlo.broadcast_in_dim %cst_376, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1528 = stablehlo.multiply %1527, %arg78 : tensor<768x256xf32>
    %1529 = stablehlo.add %1526, %1528 : tensor<768x256xf32>
    %cst_377 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1530 = stablehlo.broadcast_in_dim %cst_377, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1531 = stablehlo.multiply %1530, %1050 : tensor<256xf32>
    %cst_378 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1532 = stablehlo.broadcast_in_dim %cst_378, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1533 = stablehlo.multiply %1532, %arg79 : tensor<256xf32>
    %1534 = stablehlo.add %1531, %1533 : tensor<256xf32>
    %cst_379 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1535 = stablehlo.broadcast_in_dim %cst_379, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1536 = stablehlo.multiply %1535, %1054 : tensor<256x256xf32>
    %cst_380 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1537 = stablehlo.broadcast_in_dim %cst_380, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1538 = stablehlo.multiply %1537, %arg80 : tensor<256x256xf32>
    %1539 = stablehlo.add %1536, %1538 : tensor<256x256xf32>
    %cst_381 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1540 = stablehlo.broadcast_in_dim %cst_381, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1541 = stablehlo.multiply %1540, %1091 : tensor<256xf32>
    %cst_382 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1542 = stablehlo.broadcast_in_dim %cst_382, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1543 = stablehlo.multiply %1542, %arg81 : tensor<256xf32>
    %1544 = stablehlo.add %1541, %1543 : tensor<256xf32>
    %cst_383 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1545 = stablehlo.broadcast_in_dim %cst_383, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1546 = stablehlo.multiply %1545, %1102 : tensor<256xf32>
    %cst_384 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1547 = stablehlo.broadcast_in_dim %cst_384, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1548 = stablehlo.multiply %1547, %arg82 : tensor<256xf32>
    %1549 = stablehlo.add %1546, %1548 : tensor<256xf32>
    %cst_385 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1550 = stablehlo.broadcast_in_dim %cst_385, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1551 = stablehlo.multiply %1550, %1016 : tensor<256xf32>
    %cst_386 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1552 = stablehlo.broadcast_in_dim %cst_386, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1553 = stablehlo.multiply %1552, %arg83 : tensor<256xf32>
    %1554 = stablehlo.add %1551, %1553 : tensor<256xf32>
    %cst_387 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1555 = stablehlo.broadcast_in_dim %cst_387, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1556 = stablehlo.multiply %1555, %1027 : tensor<256xf32>
    %cst_388 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1557 = stablehlo.broadcast_in_dim %cst_388, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1558 = stablehlo.multiply %1557, %arg84 : tensor<256xf32>
    %1559 = stablehlo.add %1556, %1558 : tensor<256xf32>
    %cst_389 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1560 = stablehlo.broadcast_in_dim %cst_389, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1561 = stablehlo.multiply %1560, %1009 : tensor<1024xf32>
    %cst_390 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1562 = stablehlo.broadcast_in_dim %cst_390, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1563 = stablehlo.multiply %1562, %arg85 : tensor<1024xf32>
    %1564 = stablehlo.add %1561, %1563 : tensor<1024xf32>
    %cst_391 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1565 = stablehlo.broadcast_in_dim %cst_391, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1566 = stablehlo.multiply %1565, %1013 : tensor<1024x256xf32>
    %cst_392 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1567 = stablehlo.broadcast_in_dim %cst_392, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1568 = stablehlo.multiply %1567, %arg86 : tensor<1024x256xf32>
    %1569 = stablehlo.add %1566, %1568 : tensor<1024x256xf32>
    %cst_393 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1570 = stablehlo.broadcast_in_dim %cst_393, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1571 = stablehlo.multiply %1570, %988 : tensor<256xf32>
    %cst_394 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1572 = stablehlo.broadcast_in_dim %cst_394, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1573 = stablehlo.multiply %1572, %arg87 : tensor<256xf32>
    %1574 = stablehlo.add %1571, %1573 : tensor<256xf32>
    %cst_395 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1575 = stablehlo.broadcast_in_dim %cst_395, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1576 = stablehlo.multiply %1575, %992 : tensor<256x1024xf32>
    %cst_396 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1577 = stablehlo.broadcast_in_dim %cst_396, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1578 = stablehlo.multiply %1577, %arg88 : tensor<256x1024xf32>
    %1579 = stablehlo.add %1576, %1578 : tensor<256x1024xf32>
    %cst_397 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1580 = stablehlo.broadcast_in_dim %cst_397, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1581 = stablehlo.multiply %1580, %947 : tensor<768xf32>
    %cst_398 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1582 = stablehlo.broadcast_in_dim %cst_398, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1583 = stablehlo.multiply %1582, %arg89 : tensor<768xf32>
    %1584 = stablehlo.add %1581, %1583 : tensor<768xf32>
    %cst_399 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1585 = stablehlo.broadcast_in_dim %cst_399, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1586 = stablehlo.multiply %1585, %951 : tensor<768x256xf32>
    %cst_400 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1587 = stablehlo.broadcast_in_dim %cst_400, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1588 = stablehlo.multiply %1587, %arg90 : tensor<768x256xf32>
    %1589 = stablehlo.add %1586, %1588 : tensor<768x256xf32>
    %cst_401 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1590 = stablehlo.broadcast_in_dim %cst_401, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1591 = stablehlo.multiply %1590, %913 : tensor<256xf32>
    %cst_402 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1592 = stablehlo.broadcast_in_dim %cst_402, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1593 = stablehlo.multiply %1592, %arg91 : tensor<256xf32>
    %1594 = stablehlo.add %1591, %1593 : tensor<256xf32>
    %cst_403 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1595 = stablehlo.broadcast_in_dim %cst_403, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1596 = stablehlo.multiply %1595, %917 : tensor<256x256xf32>
    %cst_404 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1597 = stablehlo.broadcast_in_dim %cst_404, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1598 = stablehlo.multiply %1597, %arg92 : tensor<256x256xf32>
    %1599 = stablehlo.add %1596, %1598 : tensor<256x256xf32>
    %cst_405 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1600 = stablehlo.broadcast_in_dim %cst_405, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1601 = stablehlo.multiply %1600, %954 : tensor<256xf32>
    %cst_406 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1602 = stablehlo.broadcast_in_dim %cst_406, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1603 = stablehlo.multiply %1602, %arg93 : tensor<256xf32>
    %1604 = stablehlo.add %1601, %1603 : tensor<256xf32>
    %cst_407 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1605 = stablehlo.broadcast_in_dim %cst_407, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1606 = stablehlo.multiply %1605, %965 : tensor<256xf32>
    %cst_408 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1607 = stablehlo.broadcast_in_dim %cst_408, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1608 = stablehlo.multiply %1607, %arg94 : tensor<256xf32>
    %1609 = stablehlo.add %1606, %1608 : tensor<256xf32>
    %cst_409 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1610 = stablehlo.broadcast_in_dim %cst_409, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1611 = stablehlo.multiply %1610, %879 : tensor<256xf32>
    %cst_410 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1612 = stablehlo.broadcast_in_dim %cst_410, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1613 = stablehlo.multiply %1612, %arg95 : tensor<256xf32>
    %1614 = stablehlo.add %1611, %1613 : tensor<256xf32>
    %cst_411 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1615 = stablehlo.broadcast_in_dim %cst_411, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1616 = stablehlo.multiply %1615, %890 : tensor<256xf32>
    %cst_412 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1617 = stablehlo.broadcast_in_dim %cst_412, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1618 = stablehlo.multiply %1617, %arg96 : tensor<256xf32>
    %1619 = stablehlo.add %1616, %1618 : tensor<256xf32>
    %cst_413 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1620 = stablehlo.broadcast_in_dim %cst_413, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1621 = stablehlo.multiply %1620, %872 : tensor<1024xf32>
    %cst_414 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1622 = stablehlo.broadcast_in_dim %cst_414, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1623 = stablehlo.multiply %1622, %arg97 : tensor<1024xf32>
    %1624 = stablehlo.add %1621, %1623 : tensor<1024xf32>
    %cst_415 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1625 = stablehlo.broadcast_in_dim %cst_415, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1626 = stablehlo.multiply %1625, %876 : tensor<1024x256xf32>
    %cst_416 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1627 = stablehlo.broadcast_in_dim %cst_416, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1628 = stablehlo.multiply %1627, %arg98 : tensor<1024x256xf32>
    %1629 = stablehlo.add %1626, %1628 : tensor<1024x256xf32>
    %cst_417 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1630 = stablehlo.broadcast_in_dim %cst_417, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1631 = stablehlo.multiply %1630, %851 : tensor<256xf32>
    %cst_418 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1632 = stablehlo.broadcast_in_dim %cst_418, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1633 = stablehlo.multiply %1632, %arg99 : tensor<256xf32>
    %1634 = stablehlo.add %1631, %1633 : tensor<256xf32>
    %cst_419 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1635 = stablehlo.broadcast_in_dim %cst_419, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1636 = stablehlo.multiply %1635, %855 : tensor<256x1024xf32>
    %cst_420 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1637 = stablehlo.broadcast_in_dim %cst_420, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1638 = stablehlo.multiply %1637, %arg100 : tensor<256x1024xf32>
    %1639 = stablehlo.add %1636, %1638 : tensor<256x1024xf32>
    %cst_421 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1640 = stablehlo.broadcast_in_dim %cst_421, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1641 = stablehlo.multiply %1640, %818 : tensor<256xf32>
    %cst_422 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1642 = stablehlo.broadcast_in_dim %cst_422, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1643 = stablehlo.multiply %1642, %arg101 : tensor<256xf32>
    %1644 = stablehlo.add %1641, %1643 : tensor<256xf32>
    %cst_423 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1645 = stablehlo.broadcast_in_dim %cst_423, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1646 = stablehlo.multiply %1645, %829 : tensor<256xf32>
    %cst_424 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1647 = stablehlo.broadcast_in_dim %cst_424, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1648 = stablehlo.multiply %1647, %arg102 : tensor<256xf32>
    %1649 = stablehlo.add %1646, %1648 : tensor<256xf32>
    %cst_425 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1650 = stablehlo.broadcast_in_dim %cst_425, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %1651 = stablehlo.multiply %1650, %1397 : tensor<128x256xf32>
    %cst_426 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1652 = stablehlo.broadcast_in_dim %cst_426, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %1653 = stablehlo.multiply %1652, %arg103 : tensor<128x256xf32>
    %1654 = stablehlo.add %1651, %1653 : tensor<128x256xf32>
    %cst_427 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1655 = stablehlo.broadcast_in_dim %cst_427, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %1656 = stablehlo.multiply %1655, %1399 : tensor<50257x256xf32>
    %cst_428 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1657 = stablehlo.broadcast_in_dim %cst_428, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %1658 = stablehlo.multiply %1657, %arg104 : tensor<50257x256xf32>
    %1659 = stablehlo.add %1656, %1658 : tensor<50257x256xf32>
    %1660 = stablehlo.multiply %1358, %1358 : tensor<768xf32>
    %cst_429 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1661 = stablehlo.broadcast_in_dim %cst_429, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1662 = stablehlo.multiply %1661, %1660 : tensor<768xf32>
    %cst_430 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1663 = stablehlo.broadcast_in_dim %cst_430, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1664 = stablehlo.multiply %1663, %arg105 : tensor<768xf32>
    %1665 = stablehlo.add %1662, %1664 : tensor<768xf32>
    %1666 = stablehlo.multiply %1362, %1362 : tensor<768x256xf32>
    %cst_431 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1667 = stablehlo.broadcast_in_dim %cst_431, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1668 = stablehlo.multiply %1667, %1666 : tensor<768x256xf32>
    %cst_432 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1669 = stablehlo.broadcast_in_dim %cst_432, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1670 = stablehlo.multiply %1669, %arg106 : tensor<768x256xf32>
    %1671 = stablehlo.add %1668, %1670 : tensor<768x256xf32>
    %1672 = stablehlo.multiply %1324, %1324 : tensor<256xf32>
    %cst_433 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1673 = stablehlo.broadcast_in_dim %cst_433, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1674 = stablehlo.multiply %1673, %1672 : tensor<256xf32>
    %cst_434 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1675 = stablehlo.broadcast_in_dim %cst_434, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1676 = stablehlo.multiply %1675, %arg107 : tensor<256xf32>
    %1677 = stablehlo.add %1674, %1676 : tensor<256xf32>
    %1678 = stablehlo.multiply %1328, %1328 : tensor<256x256xf32>
    %cst_435 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1679 = stablehlo.broadcast_in_dim %cst_435, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1680 = stablehlo.multiply %1679, %1678 : tensor<256x256xf32>
    %cst_436 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1681 = stablehlo.broadcast_in_dim %cst_436, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1682 = stablehlo.multiply %1681, %arg108 : tensor<256x256xf32>
    %1683 = stablehlo.add %1680, %1682 : tensor<256x256xf32>
    %1684 = stablehlo.multiply %1365, %1365 : tensor<256xf32>
    %cst_437 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1685 = stablehlo.broadcast_in_dim %cst_437, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1686 = stablehlo.multiply %1685, %1684 : tensor<256xf32>
    %cst_438 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1687 = stablehlo.broadcast_in_dim %cst_438, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1688 = stablehlo.multiply %1687, %arg109 : tensor<256xf32>
    %1689 = stablehlo.add %1686, %1688 : tensor<256xf32>
    %1690 = stablehlo.multiply %1376, %1376 : tensor<256xf32>
    %cst_439 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1691 = stablehlo.broadcast_in_dim %cst_439, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1692 = stablehlo.multiply %1691, %1690 : tensor<256xf32>
    %cst_440 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1693 = stablehlo.broadcast_in_dim %cst_440, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1694 = stablehlo.multiply %1693, %arg110 : tensor<256xf32>
    %1695 = stablehlo.add %1692, %1694 : tensor<256xf32>
    %1696 = stablehlo.multiply %1290, %1290 : tensor<256xf32>
    %cst_441 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1697 = stablehlo.broadcast_in_dim %cst_441, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1698 = stablehlo.multiply %1697, %1696 : tensor<256xf32>
    %cst_442 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1699 = stablehlo.broadcast_in_dim %cst_442, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1700 = stablehlo.multiply %1699, %arg111 : tensor<256xf32>
    %1701 = stablehlo.add %1698, %1700 : tensor<256xf32>
    %1702 = stablehlo.multiply %1301, %1301 : tensor<256xf32>
    %cst_443 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1703 = stablehlo.broadcast_in_dim %cst_443, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1704 = stablehlo.multiply %1703, %1702 : tensor<256xf32>
    %cst_444 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1705 = stablehlo.broadcast_in_dim %cst_444, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1706 = stablehlo.multiply %1705, %arg112 : tensor<256xf32>
    %1707 = stablehlo.add %1704, %1706 : tensor<256xf32>
    %1708 = stablehlo.multiply %1283, %1283 : tensor<1024xf32>
    %cst_445 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1709 = stablehlo.broadcast_in_dim %cst_445, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1710 = stablehlo.multiply %1709, %1708 : tensor<1024xf32>
    %cst_446 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1711 = stablehlo.broadcast_in_dim %cst_446, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1712 = stablehlo.multiply %1711, %arg113 : tensor<1024xf32>
    %1713 = stablehlo.add %1710, %1712 : tensor<1024xf32>
    %1714 = stablehlo.multiply %1287, %1287 : tensor<1024x256xf32>
    %cst_447 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1715 = stablehlo.broadcast_in_dim %cst_447, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1716 = stablehlo.multiply %1715, %1714 : tensor<1024x256xf32>
    %cst_448 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1717 = stablehlo.broadcast_in_dim %cst_448, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1718 = stablehlo.multiply %1717, %arg114 : tensor<1024x256xf32>
    %1719 = stablehlo.add %1716, %1718 : tensor<1024x256xf32>
    %1720 = stablehlo.multiply %1262, %1262 : tensor<256xf32>
    %cst_449 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1721 = stablehlo.broadcast_in_dim %cst_449, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1722 = stablehlo.multiply %1721, %1720 : tensor<256xf32>
    %cst_450 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1723 = stablehlo.broadcast_in_dim %cst_450, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1724 = stablehlo.multiply %1723, %arg115 : tensor<256xf32>
    %1725 = stablehlo.add %1722, %1724 : tensor<256xf32>
    %1726 = stablehlo.multiply %1266, %1266 : tensor<256x1024xf32>
    %cst_451 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1727 = stablehlo.broadcast_in_dim %cst_451, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1728 = stablehlo.multiply %1727, %1726 : tensor<256x1024xf32>
    %cst_452 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1729 = stablehlo.broadcast_in_dim %cst_452, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1730 = stablehlo.multiply %1729, %arg116 : tensor<256x1024xf32>
    %1731 = stablehlo.add %1728, %1730 : tensor<256x1024xf32>
    %1732 = stablehlo.multiply %1221, %1221 : tensor<768xf32>
    %cst_453 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1733 = stablehlo.broadcast_in_dim %cst_453, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1734 = stablehlo.multiply %1733, %1732 : tensor<768xf32>
    %cst_454 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1735 = stablehlo.broadcast_in_dim %cst_454, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1736 = stablehlo.multiply %1735, %arg117 : tensor<768xf32>
    %1737 = stablehlo.add %1734, %1736 : tensor<768xf32>
    %1738 = stablehlo.multiply %1225, %1225 : tensor<768x256xf32>
    %cst_455 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1739 = stablehlo.broadcast_in_dim %cst_455, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1740 = stablehlo.multiply %1739, %1738 : tensor<768x256xf32>
    %cst_456 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1741 = stablehlo.broadcast_in_dim %cst_456, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1742 = stablehlo.multiply %1741, %arg118 : tensor<768x256xf32>
    %1743 = stablehlo.add %1740, %1742 : tensor<768x256xf32>
    %1744 = stablehlo.multiply %1187, %1187 : tensor<256xf32>
    %cst_457 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1745 = stablehlo.broadcast_in_dim %cst_457, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1746 = stablehlo.multiply %1745, %1744 : tensor<256xf32>
    %cst_458 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1747 = stablehlo.broadcast_in_dim %cst_458, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1748 = stablehlo.multiply %1747, %arg119 : tensor<256xf32>
    %1749 = stablehlo.add %1746, %1748 : tensor<256xf32>
    %1750 = stablehlo.multiply %1191, %1191 : tensor<256x256xf32>
    %cst_459 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1751 = stablehlo.broadcast_in_dim %cst_459, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1752 = stablehlo.multiply %1751, %1750 : tensor<256x256xf32>
    %cst_460 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1753 = stablehlo.broadcast_in_dim %cst_460, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1754 = stablehlo.multiply %1753, %arg120 : tensor<256x256xf32>
    %1755 = stablehlo.add %1752, %1754 : tensor<256x256xf32>
    %1756 = stablehlo.multiply %1228, %1228 : tensor<256xf32>
    %cst_461 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1757 = stablehlo.broadcast_in_dim %cst_461, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1758 = stablehlo.multiply %1757, %1756 : tensor<256xf32>
    %cst_462 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1759 = stablehlo.broadcast_in_dim %cst_462, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1760 = stablehlo.multiply %1759, %arg121 : tensor<256xf32>
    %1761 = stablehlo.add %1758, %1760 : tensor<256xf32>
    %1762 = stablehlo.multiply %1239, %1239 : tensor<256xf32>
    %cst_463 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1763 = stablehlo.broadcast_in_dim %cst_463, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1764 = stablehlo.multiply %1763, %1762 : tensor<256xf32>
    %cst_464 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1765 = stablehlo.broadcast_in_dim %cst_464, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1766 = stablehlo.multiply %1765, %arg122 : tensor<256xf32>
    %1767 = stablehlo.add %1764, %1766 : tensor<256xf32>
    %1768 = stablehlo.multiply %1153, %1153 : tensor<256xf32>
    %cst_465 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1769 = stablehlo.broadcast_in_dim %cst_465, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1770 = stablehlo.multiply %1769, %1768 : tensor<256xf32>
    %cst_466 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1771 = stablehlo.broadcast_in_dim %cst_466, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1772 = stablehlo.multiply %1771, %arg123 : tensor<256xf32>
    %1773 = stablehlo.add %1770, %1772 : tensor<256xf32>
    %1774 = stablehlo.multiply %1164, %1164 : tensor<256xf32>
    %cst_467 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1775 = stablehlo.broadcast_in_dim %cst_467, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1776 = stablehlo.multiply %1775, %1774 : tensor<256xf32>
    %cst_468 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1777 = stablehlo.broadcast_in_dim %cst_468, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1778 = stablehlo.multiply %1777, %arg124 : tensor<256xf32>
    %1779 = stablehlo.add %1776, %1778 : tensor<256xf32>
    %1780 = stablehlo.multiply %1146, %1146 : tensor<1024xf32>
    %cst_469 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1781 = stablehlo.broadcast_in_dim %cst_469, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1782 = stablehlo.multiply %1781, %1780 : tensor<1024xf32>
    %cst_470 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1783 = stablehlo.broadcast_in_dim %cst_470, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1784 = stablehlo.multiply %1783, %arg125 : tensor<1024xf32>
    %1785 = stablehlo.add %1782, %1784 : tensor<1024xf32>
    %1786 = stablehlo.multiply %1150, %1150 : tensor<1024x256xf32>
    %cst_471 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1787 = stablehlo.broadcast_in_dim %cst_471, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1788 = stablehlo.multiply %1787, %1786 : tensor<1024x256xf32>
    %cst_472 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1789 = stablehlo.broadcast_in_dim %cst_472, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1790 = stablehlo.multiply %1789, %arg126 : tensor<1024x256xf32>
    %1791 = stablehlo.add %1788, %1790 : tensor<1024x256xf32>
    %1792 = stablehlo.multiply %1125, %1125 : tensor<256xf32>
    %cst_473 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1793 = stablehlo.broadcast_in_dim %cst_473, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1794 = stablehlo.multiply %1793, %1792 : tensor<256xf32>
    %cst_474 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1795 = stablehlo.broadcast_in_dim %cst_474, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1796 = stablehlo.multiply %1795, %arg127 : tensor<256xf32>
    %1797 = stablehlo.add %1794, %1796 : tensor<256xf32>
    %1798 = stablehlo.multiply %1129, %1129 : tensor<256x1024xf32>
    %cst_475 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1799 = stablehlo.broadcast_in_dim %cst_475, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1800 = stablehlo.multiply %1799, %1798 : tensor<256x1024xf32>
    %cst_476 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1801 = stablehlo.broadcast_in_dim %cst_476, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1802 = stablehlo.multiply %1801, %arg128 : tensor<256x1024xf32>
    %1803 = stablehlo.add %1800, %1802 : tensor<256x1024xf32>
    %1804 = stablehlo.multiply %1084, %1084 : tensor<768xf32>
    %cst_477 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1805 = stablehlo.broadcast_in_dim %cst_477, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1806 = stablehlo.multiply %1805, %1804 : tensor<768xf32>
    %cst_478 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1807 = stablehlo.broadcast_in_dim %cst_478, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1808 = stablehlo.multiply %1807, %arg129 : tensor<768xf32>
    %1809 = stablehlo.add %1806, %1808 : tensor<768xf32>
    %1810 = stablehlo.multiply %1088, %1088 : tensor<768x256xf32>
    %cst_479 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1811 = stablehlo.broadcast_in_dim %cst_479, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1812 = stablehlo.multiply %1811, %1810 : tensor<768x256xf32>
    %cst_480 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1813 = stablehlo.broadcast_in_dim %cst_480, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1814 = stablehlo.multiply %1813, %arg130 : tensor<768x256xf32>
    %1815 = stablehlo.add %1812, %1814 : tensor<768x256xf32>
    %1816 = stablehlo.multiply %1050, %1050 : tensor<256xf32>
    %cst_481 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1817 = stablehlo.broadcast_in_dim %cst_481, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1818 = stablehlo.multiply %1817, %1816 : tensor<256xf32>
    %cst_482 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1819 = stablehlo.broadcast_in_dim %cst_482, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1820 = stablehlo.multiply %1819, %arg131 : tensor<256xf32>
    %1821 = stablehlo.add %1818, %1820 : tensor<256xf32>
    %1822 = stablehlo.multiply %1054, %1054 : tensor<256x256xf32>
    %cst_483 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1823 = stablehlo.broadcast_in_dim %cst_483, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1824 = stablehlo.multiply %1823, %1822 : tensor<256x256xf32>
    %cst_484 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1825 = stablehlo.broadcast_in_dim %cst_484, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1826 = stablehlo.multiply %1825, %arg132 : tensor<256x256xf32>
    %1827 = stablehlo.add %1824, %1826 : tensor<256x256xf32>
    %1828 = stablehlo.multiply %1091, %1091 : tensor<256xf32>
    %cst_485 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1829 = stablehlo.broadcast_in_dim %cst_485, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1830 = stablehlo.multiply %1829, %1828 : tensor<256xf32>
    %cst_486 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1831 = stablehlo.broadcast_in_dim %cst_486, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1832 = stablehlo.multiply %1831, %arg133 : tensor<256xf32>
    %1833 = stablehlo.add %1830, %1832 : tensor<256xf32>
    %1834 = stablehlo.multiply %1102, %1102 : tensor<256xf32>
    %cst_487 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1835 = stablehlo.broadcast_in_dim %cst_487, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1836 = stablehlo.multiply %1835, %1834 : tensor<256xf32>
    %cst_488 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1837 = stablehlo.broadcast_in_dim %cst_488, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1838 = stablehlo.multiply %1837, %arg134 : tensor<256xf32>
    %1839 = stablehlo.add %1836, %1838 : tensor<256xf32>
    %1840 = stablehlo.multiply %1016, %1016 : tensor<256xf32>
    %cst_489 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1841 = stablehlo.broadcast_in_dim %cst_489, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1842 = stablehlo.multiply %1841, %1840 : tensor<256xf32>
    %cst_490 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1843 = stablehlo.broadcast_in_dim %cst_490, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1844 = stablehlo.multiply %1843, %arg135 : tensor<256xf32>
    %1845 = stablehlo.add %1842, %1844 : tensor<256xf32>
    %1846 = stablehlo.multiply %1027, %1027 : tensor<256xf32>
    %cst_491 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1847 = stablehlo.broadcast_in_dim %cst_491, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1848 = stablehlo.multiply %1847, %1846 : tensor<256xf32>
    %cst_492 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1849 = stablehlo.broadcast_in_dim %cst_492, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1850 = stablehlo.multiply %1849, %arg136 : tensor<256xf32>
    %1851 = stablehlo.add %1848, %1850 : tensor<256xf32>
    %1852 = stablehlo.multiply %1009, %1009 : tensor<1024xf32>
    %cst_493 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1853 = stablehlo.broadcast_in_dim %cst_493, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1854 = stablehlo.multiply %1853, %1852 : tensor<1024xf32>
    %cst_494 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1855 = stablehlo.broadcast_in_dim %cst_494, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1856 = stablehlo.multiply %1855, %arg137 : tensor<1024xf32>
    %1857 = stablehlo.add %1854, %1856 : tensor<1024xf32>
    %1858 = stablehlo.multiply %1013, %1013 : tensor<1024x256xf32>
    %cst_495 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1859 = stablehlo.broadcast_in_dim %cst_495, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1860 = stablehlo.multiply %1859, %1858 : tensor<1024x256xf32>
    %cst_496 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1861 = stablehlo.broadcast_in_dim %cst_496, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1862 = stablehlo.multiply %1861, %arg138 : tensor<1024x256xf32>
    %1863 = stablehlo.add %1860, %1862 : tensor<1024x256xf32>
    %1864 = stablehlo.multiply %988, %988 : tensor<256xf32>
    %cst_497 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1865 = stablehlo.broadcast_in_dim %cst_497, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1866 = stablehlo.multiply %1865, %1864 : tensor<256xf32>
    %cst_498 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1867 = stablehlo.broadcast_in_dim %cst_498, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1868 = stablehlo.multiply %1867, %arg139 : tensor<256xf32>
    %1869 = stablehlo.add %1866, %1868 : tensor<256xf32>
    %1870 = stablehlo.multiply %992, %992 : tensor<256x1024xf32>
    %cst_499 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1871 = stablehlo.broadcast_in_dim %cst_499, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1872 = stablehlo.multiply %1871, %1870 : tensor<256x1024xf32>
    %cst_500 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1873 = stablehlo.broadcast_in_dim %cst_500, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1874 = stablehlo.multiply %1873, %arg140 : tensor<256x1024xf32>
    %1875 = stablehlo.add %1872, %1874 : tensor<256x1024xf32>
    %1876 = stablehlo.multiply %947, %947 : tensor<768xf32>
    %cst_501 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1877 = stablehlo.broadcast_in_dim %cst_501, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1878 = stablehlo.multiply %1877, %1876 : tensor<768xf32>
    %cst_502 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1879 = stablehlo.broadcast_in_dim %cst_502, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1880 = stablehlo.multiply %1879, %arg141 : tensor<768xf32>
    %1881 = stablehlo.add %1878, %1880 : tensor<768xf32>
    %1882 = stablehlo.multiply %951, %951 : tensor<768x256xf32>
    %cst_503 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1883 = stablehlo.broadcast_in_dim %cst_503, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1884 = stablehlo.multiply %1883, %1882 : tensor<768x256xf32>
    %cst_504 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1885 = stablehlo.broadcast_in_dim %cst_504, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1886 = stablehlo.multiply %1885, %arg142 : tensor<768x256xf32>
    %1887 = stablehlo.add %1884, %1886 : tensor<768x256xf32>
    %1888 = stablehlo.multiply %913, %913 : tensor<256xf32>
    %cst_505 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1889 = stablehlo.broadcast_in_dim %cst_505, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1890 = stablehlo.multiply %1889, %1888 : tensor<256xf32>
    %cst_506 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1891 = stablehlo.broadcast_in_dim %cst_506, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1892 = stablehlo.multiply %1891, %arg143 : tensor<256xf32>
    %1893 = stablehlo.add %1890, %1892 : tensor<256xf32>
    %1894 = stablehlo.multiply %917, %917 : tensor<256x256xf32>
    %cst_507 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1895 = stablehlo.broadcast_in_dim %cst_507, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1896 = stablehlo.multiply %1895, %1894 : tensor<256x256xf32>
    %cst_508 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1897 = stablehlo.broadcast_in_dim %cst_508, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1898 = stablehlo.multiply %1897, %arg144 : tensor<256x256xf32>
    %1899 = stablehlo.add %1896, %1898 : tensor<256x256xf32>
    %1900 = stablehlo.multiply %954, %954 : tensor<256xf32>
    %cst_509 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1901 = stablehlo.broadcast_in_dim %cst_509, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1902 = stablehlo.multiply %1901, %1900 : tensor<256xf32>
    %cst_510 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1903 = stablehlo.broadcast_in_dim %cst_510, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1904 = stablehlo.multiply %1903, %arg145 : tensor<256xf32>
    %1905 = stablehlo.add %1902, %1904 : tensor<256xf32>
    %1906 = stablehlo.multiply %965, %965 : tensor<256xf32>
    %cst_511 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1907 = stablehlo.broadcast_in_dim %cst_511, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1908 = stablehlo.multiply %1907, %1906 : tensor<256xf32>
    %cst_512 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1909 = stablehlo.broadcast_in_dim %cst_512, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1910 = stablehlo.multiply %1909, %arg146 : tensor<256xf32>
    %1911 = stablehlo.add %1908, %1910 : tensor<256xf32>
    %1912 = stablehlo.multiply %879, %879 : tensor<256xf32>
    %cst_513 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1913 = stablehlo.broadcast_in_dim %cst_513, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1914 = stablehlo.multiply %1913, %1912 : tensor<256xf32>
    %cst_514 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1915 = stablehlo.broadcast_in_dim %cst_514, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1916 = stablehlo.multiply %1915, %arg147 : tensor<256xf32>
    %1917 = stablehlo.add %1914, %1916 : tensor<256xf32>
    %1918 = stablehlo.multiply %890, %890 : tensor<256xf32>
    %cst_515 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1919 = stablehlo.broadcast_in_dim %cst_515, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1920 = stablehlo.multiply %1919, %1918 : tensor<256xf32>
    %cst_516 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1921 = stablehlo.broadcast_in_dim %cst_516, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1922 = stablehlo.multiply %1921, %arg148 : tensor<256xf32>
    %1923 = stablehlo.add %1920, %1922 : tensor<256xf32>
    %1924 = stablehlo.multiply %872, %872 : tensor<1024xf32>
    %cst_517 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1925 = stablehlo.broadcast_in_dim %cst_517, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1926 = stablehlo.multiply %1925, %1924 : tensor<1024xf32>
    %cst_518 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1927 = stablehlo.broadcast_in_dim %cst_518, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1928 = stablehlo.multiply %1927, %arg149 : tensor<1024xf32>
    %1929 = stablehlo.add %1926, %1928 : tensor<1024xf32>
    %1930 = stablehlo.multiply %876, %876 : tensor<1024x256xf32>
    %cst_519 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1931 = stablehlo.broadcast_in_dim %cst_519, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1932 = stablehlo.multiply %1931, %1930 : tensor<1024x256xf32>
    %cst_520 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1933 = stablehlo.broadcast_in_dim %cst_520, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1934 = stablehlo.multiply %1933, %arg150 : tensor<1024x256xf32>
    %1935 = stablehlo.add %1932, %1934 : tensor<1024x256xf32>
    %1936 = stablehlo.multiply %851, %851 : tensor<256xf32>
    %cst_521 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1937 = stablehlo.broadcast_in_dim %cst_521, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1938 = stablehlo.multiply %1937, %1936 : tensor<256xf32>
    %cst_522 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1939 = stablehlo.broadcast_in_dim %cst_522, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1940 = stablehlo.multiply %1939, %arg151 : tensor<256xf32>
    %1941 = stablehlo.add %1938, %1940 : tensor<256xf32>
    %1942 = stablehlo.multiply %855, %855 : tensor<256x1024xf32>
    %cst_523 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1943 = stablehlo.broadcast_in_dim %cst_523, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1944 = stablehlo.multiply %1943, %1942 : tensor<256x1024xf32>
    %cst_524 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1945 = stablehlo.broadcast_in_dim %cst_524, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %1946 = stablehlo.multiply %1945, %arg152 : tensor<256x1024xf32>
    %1947 = stablehlo.add %1944, %1946 : tensor<256x1024xf32>
    %1948 = stablehlo.multiply %818, %818 : tensor<256xf32>
    %cst_525 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1949 = stablehlo.broadcast_in_dim %cst_525, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1950 = stablehlo.multiply %1949, %1948 : tensor<256xf32>
    %cst_526 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1951 = stablehlo.broadcast_in_dim %cst_526, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1952 = stablehlo.multiply %1951, %arg153 : tensor<256xf32>
    %1953 = stablehlo.add %1950, %1952 : tensor<256xf32>
    %1954 = stablehlo.multiply %829, %829 : tensor<256xf32>
    %cst_527 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1955 = stablehlo.broadcast_in_dim %cst_527, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1956 = stablehlo.multiply %1955, %1954 : tensor<256xf32>
    %cst_528 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1957 = stablehlo.broadcast_in_dim %cst_528, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1958 = stablehlo.multiply %1957, %arg154 : tensor<256xf32>
    %1959 = stablehlo.add %1956, %1958 : tensor<256xf32>
    %1960 = stablehlo.multiply %1397, %1397 : tensor<128x256xf32>
    %cst_529 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1961 = stablehlo.broadcast_in_dim %cst_529, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %1962 = stablehlo.multiply %1961, %1960 : tensor<128x256xf32>
    %cst_530 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1963 = stablehlo.broadcast_in_dim %cst_530, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %1964 = stablehlo.multiply %1963, %arg155 : tensor<128x256xf32>
    %1965 = stablehlo.add %1962, %1964 : tensor<128x256xf32>
    %1966 = stablehlo.multiply %1399, %1399 : tensor<50257x256xf32>
    %cst_531 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %1967 = stablehlo.broadcast_in_dim %cst_531, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %1968 = stablehlo.multiply %1967, %1966 : tensor<50257x256xf32>
    %cst_532 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %1969 = stablehlo.broadcast_in_dim %cst_532, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %1970 = stablehlo.multiply %1969, %arg156 : tensor<50257x256xf32>
    %1971 = stablehlo.add %1968, %1970 : tensor<50257x256xf32>
    %c_533 = stablehlo.constant dense<2147483647> : tensor<i32>
    %1972 = stablehlo.compare LT, %arg52, %c_533, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_534 = stablehlo.constant dense<1> : tensor<i32>
    %1973 = stablehlo.add %arg52, %c_534 : tensor<i32>
    %c_535 = stablehlo.constant dense<2147483647> : tensor<i32>
    %1974 = call @_where_7(%1972, %1973, %c_535) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %cst_536 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1975 = stablehlo.convert %1974 : (tensor<i32>) -> tensor<f32>
    %1976 = stablehlo.power %cst_536, %1975 : tensor<f32>
    %cst_537 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1977 = stablehlo.subtract %cst_537, %1976 : tensor<f32>
    %1978 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %1979 = stablehlo.divide %1404, %1978 : tensor<768xf32>
    %1980 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %1981 = stablehlo.divide %1409, %1980 : tensor<768x256xf32>
    %1982 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1983 = stablehlo.divide %1414, %1982 : tensor<256xf32>
    %1984 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %1985 = stablehlo.divide %1419, %1984 : tensor<256x256xf32>
    %1986 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1987 = stablehlo.divide %1424, %1986 : tensor<256xf32>
    %1988 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1989 = stablehlo.divide %1429, %1988 : tensor<256xf32>
    %1990 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1991 = stablehlo.divide %1434, %1990 : tensor<256xf32>
    %1992 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1993 = stablehlo.divide %1439, %1992 : tensor<256xf32>
    %1994 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1995 = stablehlo.divide %1444, %1994 : tensor<1024xf32>
    %1996 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %1997 = stablehlo.divide %1449, %1996 : tensor<1024x256xf32>
    %1998 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %1999 = stablehlo.divide %1454, %1998 : tensor<256xf32>
    %2000 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2001 = stablehlo.divide %1459, %2000 : tensor<256x1024xf32>
    %2002 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2003 = stablehlo.divide %1464, %2002 : tensor<768xf32>
    %2004 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2005 = stablehlo.divide %1469, %2004 : tensor<768x256xf32>
    %2006 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2007 = stablehlo.divide %1474, %2006 : tensor<256xf32>
    %2008 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2009 = stablehlo.divide %1479, %2008 : tensor<256x256xf32>
    %2010 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2011 = stablehlo.divide %1484, %2010 : tensor<256xf32>
    %2012 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2013 = stablehlo.divide %1489, %2012 : tensor<256xf32>
    %2014 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2015 = stablehlo.divide %1494, %2014 : tensor<256xf32>
    %2016 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2017 = stablehlo.divide %1499, %2016 : tensor<256xf32>
    %2018 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2019 = stablehlo.divide %1504, %2018 : tensor<1024xf32>
    %2020 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2021 = stablehlo.divide %1509, %2020 : tensor<1024x256xf32>
    %2022 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2023 = stablehlo.divide %1514, %2022 : tensor<256xf32>
    %2024 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2025 = stablehlo.divide %1519, %2024 : tensor<256x1024xf32>
    %2026 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2027 = stablehlo.divide %1524, %2026 : tensor<768xf32>
    %2028 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2029 = stablehlo.divide %1529, %2028 : tensor<768x256xf32>
    %2030 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2031 = stablehlo.divide %1534, %2030 : tensor<256xf32>
    %2032 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2033 = stablehlo.divide %1539, %2032 : tensor<256x256xf32>
    %2034 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2035 = stablehlo.divide %1544, %2034 : tensor<256xf32>
    %2036 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2037 = stablehlo.divide %1549, %2036 : tensor<256xf32>
    %2038 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2039 = stablehlo.divide %1554, %2038 : tensor<256xf32>
    %2040 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2041 = stablehlo.divide %1559, %2040 : tensor<256xf32>
    %2042 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2043 = stablehlo.divide %1564, %2042 : tensor<1024xf32>
    %2044 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2045 = stablehlo.divide %1569, %2044 : tensor<1024x256xf32>
    %2046 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2047 = stablehlo.divide %1574, %2046 : tensor<256xf32>
    %2048 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2049 = stablehlo.divide %1579, %2048 : tensor<256x1024xf32>
    %2050 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2051 = stablehlo.divide %1584, %2050 : tensor<768xf32>
    %2052 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2053 = stablehlo.divide %1589, %2052 : tensor<768x256xf32>
    %2054 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2055 = stablehlo.divide %1594, %2054 : tensor<256xf32>
    %2056 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2057 = stablehlo.divide %1599, %2056 : tensor<256x256xf32>
    %2058 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2059 = stablehlo.divide %1604, %2058 : tensor<256xf32>
    %2060 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2061 = stablehlo.divide %1609, %2060 : tensor<256xf32>
    %2062 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2063 = stablehlo.divide %1614, %2062 : tensor<256xf32>
    %2064 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2065 = stablehlo.divide %1619, %2064 : tensor<256xf32>
    %2066 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2067 = stablehlo.divide %1624, %2066 : tensor<1024xf32>
    %2068 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2069 = stablehlo.divide %1629, %2068 : tensor<1024x256xf32>
    %2070 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2071 = stablehlo.divide %1634, %2070 : tensor<256xf32>
    %2072 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2073 = stablehlo.divide %1639, %2072 : tensor<256x1024xf32>
    %2074 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2075 = stablehlo.divide %1644, %2074 : tensor<256xf32>
    %2076 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2077 = stablehlo.divide %1649, %2076 : tensor<256xf32>
    %2078 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %2079 = stablehlo.divide %1654, %2078 : tensor<128x256xf32>
    %2080 = stablehlo.broadcast_in_dim %1977, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %2081 = stablehlo.divide %1659, %2080 : tensor<50257x256xf32>
    %cst_538 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %2082 = stablehlo.convert %1974 : (tensor<i32>) -> tensor<f32>
    %2083 = stablehlo.power %cst_538, %2082 : tensor<f32>
    %cst_539 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2084 = stablehlo.subtract %cst_539, %2083 : tensor<f32>
    %2085 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2086 = stablehlo.divide %1665, %2085 : tensor<768xf32>
    %2087 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2088 = stablehlo.divide %1671, %2087 : tensor<768x256xf32>
    %2089 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2090 = stablehlo.divide %1677, %2089 : tensor<256xf32>
    %2091 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2092 = stablehlo.divide %1683, %2091 : tensor<256x256xf32>
    %2093 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2094 = stablehlo.divide %1689, %2093 : tensor<256xf32>
    %2095 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2096 = stablehlo.divide %1695, %2095 : tensor<256xf32>
    %2097 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2098 = stablehlo.divide %1701, %2097 : tensor<256xf32>
    %2099 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2100 = stablehlo.divide %1707, %2099 : tensor<256xf32>
    %2101 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2102 = stablehlo.divide %1713, %2101 : tensor<1024xf32>
    %2103 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2104 = stablehlo.divide %1719, %2103 : tensor<1024x256xf32>
    %2105 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2106 = stablehlo.divide %1725, %2105 : tensor<256xf32>
    %2107 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2108 = stablehlo.divide %1731, %2107 : tensor<256x1024xf32>
    %2109 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2110 = stablehlo.divide %1737, %2109 : tensor<768xf32>
    %2111 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2112 = stablehlo.divide %1743, %2111 : tensor<768x256xf32>
    %2113 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2114 = stablehlo.divide %1749, %2113 : tensor<256xf32>
    %2115 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2116 = stablehlo.divide %1755, %2115 : tensor<256x256xf32>
    %2117 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2118 = stablehlo.divide %1761, %2117 : tensor<256xf32>
    %2119 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2120 = stablehlo.divide %1767, %2119 : tensor<256xf32>
    %2121 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2122 = stablehlo.divide %1773, %2121 : tensor<256xf32>
    %2123 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2124 = stablehlo.divide %1779, %2123 : tensor<256xf32>
    %2125 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2126 = stablehlo.divide %1785, %2125 : tensor<1024xf32>
    %2127 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2128 = stablehlo.divide %1791, %2127 : tensor<1024x256xf32>
    %2129 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2130 = stablehlo.divide %1797, %2129 : tensor<256xf32>
    %2131 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2132 = stablehlo.divide %1803, %2131 : tensor<256x1024xf32>
    %2133 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2134 = stablehlo.divide %1809, %2133 : tensor<768xf32>
    %2135 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2136 = stablehlo.divide %1815, %2135 : tensor<768x256xf32>
    %2137 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2138 = stablehlo.divide %1821, %2137 : tensor<256xf32>
    %2139 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2140 = stablehlo.divide %1827, %2139 : tensor<256x256xf32>
    %2141 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2142 = stablehlo.divide %1833, %2141 : tensor<256xf32>
    %2143 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2144 = stablehlo.divide %1839, %2143 : tensor<256xf32>
    %2145 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2146 = stablehlo.divide %1845, %2145 : tensor<256xf32>
    %2147 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2148 = stablehlo.divide %1851, %2147 : tensor<256xf32>
    %2149 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2150 = stablehlo.divide %1857, %2149 : tensor<1024xf32>
    %2151 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2152 = stablehlo.divide %1863, %2151 : tensor<1024x256xf32>
    %2153 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2154 = stablehlo.divide %1869, %2153 : tensor<256xf32>
    %2155 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2156 = stablehlo.divide %1875, %2155 : tensor<256x1024xf32>
    %2157 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2158 = stablehlo.divide %1881, %2157 : tensor<768xf32>
    %2159 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2160 = stablehlo.divide %1887, %2159 : tensor<768x256xf32>
    %2161 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2162 = stablehlo.divide %1893, %2161 : tensor<256xf32>
    %2163 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2164 = stablehlo.divide %1899, %2163 : tensor<256x256xf32>
    %2165 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2166 = stablehlo.divide %1905, %2165 : tensor<256xf32>
    %2167 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2168 = stablehlo.divide %1911, %2167 : tensor<256xf32>
    %2169 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2170 = stablehlo.divide %1917, %2169 : tensor<256xf32>
    %2171 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2172 = stablehlo.divide %1923, %2171 : tensor<256xf32>
    %2173 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2174 = stablehlo.divide %1929, %2173 : tensor<1024xf32>
    %2175 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2176 = stablehlo.divide %1935, %2175 : tensor<1024x256xf32>
    %2177 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2178 = stablehlo.divide %1941, %2177 : tensor<256xf32>
    %2179 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2180 = stablehlo.divide %1947, %2179 : tensor<256x1024xf32>
    %2181 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2182 = stablehlo.divide %1953, %2181 : tensor<256xf32>
    %2183 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2184 = stablehlo.divide %1959, %2183 : tensor<256xf32>
    %2185 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %2186 = stablehlo.divide %1965, %2185 : tensor<128x256xf32>
    %2187 = stablehlo.broadcast_in_dim %2084, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %2188 = stablehlo.divide %1971, %2187 : tensor<50257x256xf32>
    %cst_540 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2189 = stablehlo.broadcast_in_dim %cst_540, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2190 = stablehlo.add %2086, %2189 : tensor<768xf32>
    %2191 = stablehlo.sqrt %2190 : tensor<768xf32>
    %cst_541 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2192 = stablehlo.broadcast_in_dim %cst_541, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2193 = stablehlo.add %2191, %2192 : tensor<768xf32>
    %2194 = stablehlo.divide %1979, %2193 : tensor<768xf32>
    %cst_542 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2195 = stablehlo.broadcast_in_dim %cst_542, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2196 = stablehlo.add %2088, %2195 : tensor<768x256xf32>
    %2197 = stablehlo.sqrt %2196 : tensor<768x256xf32>
    %cst_543 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2198 = stablehlo.broadcast_in_dim %cst_543, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2199 = stablehlo.add %2197, %2198 : tensor<768x256xf32>
    %2200 = stablehlo.divide %1981, %2199 : tensor<768x256xf32>
    %cst_544 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2201 = stablehlo.broadcast_in_dim %cst_544, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2202 = stablehlo.add %2090, %2201 : tensor<256xf32>
    %2203 = stablehlo.sqrt %2202 : tensor<256xf32>
    %cst_545 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2204 = stablehlo.broadcast_in_dim %cst_545, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2205 = stablehlo.add %2203, %2204 : tensor<256xf32>
    %2206 = stablehlo.divide %1983, %2205 : tensor<256xf32>
    %cst_546 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2207 = stablehlo.broadcast_in_dim %cst_546, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2208 = stablehlo.add %2092, %2207 : tensor<256x256xf32>
    %2209 = stablehlo.sqrt %2208 : tensor<256x256xf32>
    %cst_547 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2210 = stablehlo.broadcast_in_dim %cst_547, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2211 = stablehlo.add %2209, %2210 : tensor<256x256xf32>
    %2212 = stablehlo.divide %1985, %2211 : tensor<256x256xf32>
    %cst_548 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2213 = stablehlo.broadcast_in_dim %cst_548, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2214 = stablehlo.add %2094, %2213 : tensor<256xf32>
    %2215 = stablehlo.sqrt %2214 : tensor<256xf32>
    %cst_549 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2216 = stablehlo.broadcast_in_dim %cst_549, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2217 = stablehlo.add %2215, %2216 : tensor<256xf32>
    %2218 = stablehlo.divide %1987, %2217 : tensor<256xf32>
    %cst_550 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2219 = stablehlo.broadcast_in_dim %cst_550, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2220 = stablehlo.add %2096, %2219 : tensor<256xf32>
    %2221 = stablehlo.sqrt %2220 : tensor<256xf32>
    %cst_551 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2222 = stablehlo.broadcast_in_dim %cst_551, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2223 = stablehlo.add %2221, %2222 : tensor<256xf32>
    %2224 = stablehlo.divide %1989, %2223 : tensor<256xf32>
    %cst_552 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2225 = stablehlo.broadcast_in_dim %cst_552, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2226 = stablehlo.add %2098, %2225 : tensor<256xf32>
    %2227 = stablehlo.sqrt %2226 : tensor<256xf32>
    %cst_553 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2228 = stablehlo.broadcast_in_dim %cst_553, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2229 = stablehlo.add %2227, %2228 : tensor<256xf32>
    %2230 = stablehlo.divide %1991, %2229 : tensor<256xf32>
    %cst_554 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2231 = stablehlo.broadcast_in_dim %cst_554, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2232 = stablehlo.add %2100, %2231 : tensor<256xf32>
    %2233 = stablehlo.sqrt %2232 : tensor<256xf32>
    %cst_555 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2234 = stablehlo.broadcast_in_dim %cst_555, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2235 = stablehlo.add %2233, %2234 : tensor<256xf32>
    %2236 = stablehlo.divide %1993, %2235 : tensor<256xf32>
    %cst_556 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2237 = stablehlo.broadcast_in_dim %cst_556, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2238 = stablehlo.add %2102, %2237 : tensor<1024xf32>
    %2239 = stablehlo.sqrt %2238 : tensor<1024xf32>
    %cst_557 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2240 = stablehlo.broadcast_in_dim %cst_557, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2241 = stablehlo.add %2239, %2240 : tensor<1024xf32>
    %2242 = stablehlo.divide %1995, %2241 : tensor<1024xf32>
    %cst_558 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2243 = stablehlo.broadcast_in_dim %cst_558, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2244 = stablehlo.add %2104, %2243 : tensor<1024x256xf32>
    %2245 = stablehlo.sqrt %2244 : tensor<1024x256xf32>
    %cst_559 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2246 = stablehlo.broadcast_in_dim %cst_559, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2247 = stablehlo.add %2245, %2246 : tensor<1024x256xf32>
    %2248 = stablehlo.divide %1997, %2247 : tensor<1024x256xf32>
    %cst_560 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2249 = stablehlo.broadcast_in_dim %cst_560, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2250 = stablehlo.add %2106, %2249 : tensor<256xf32>
    %2251 = stablehlo.sqrt %2250 : tensor<256xf32>
    %cst_561 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2252 = stablehlo.broadcast_in_dim %cst_561, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2253 = stablehlo.add %2251, %2252 : tensor<256xf32>
    %2254 = stablehlo.divide %1999, %2253 : tensor<256xf32>
    %cst_562 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2255 = stablehlo.broadcast_in_dim %cst_562, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2256 = stablehlo.add %2108, %2255 : tensor<256x1024xf32>
    %2257 = stablehlo.sqrt %2256 : tensor<256x1024xf32>
    %cst_563 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2258 = stablehlo.broadcast_in_dim %cst_563, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2259 = stablehlo.add %2257, %2258 : tensor<256x1024xf32>
    %2260 = stablehlo.divide %2001, %2259 : tensor<256x1024xf32>
    %cst_564 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2261 = stablehlo.broadcast_in_dim %cst_564, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2262 = stablehlo.add %2110, %2261 : tensor<768xf32>
    %2263 = stablehlo.sqrt %2262 : tensor<768xf32>
    %cst_565 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2264 = stablehlo.broadcast_in_dim %cst_565, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2265 = stablehlo.add %2263, %2264 : tensor<768xf32>
    %2266 = stablehlo.divide %2003, %2265 : tensor<768xf32>
    %cst_566 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2267 = stablehlo.broadcast_in_dim %cst_566, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2268 = stablehlo.add %2112, %2267 : tensor<768x256xf32>
    %2269 = stablehlo.sqrt %2268 : tensor<768x256xf32>
    %cst_567 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2270 = stablehlo.broadcast_in_dim %cst_567, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2271 = stablehlo.add %2269, %2270 : tensor<768x256xf32>
    %2272 = stablehlo.divide %2005, %2271 : tensor<768x256xf32>
    %cst_568 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2273 = stablehlo.broadcast_in_dim %cst_568, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2274 = stablehlo.add %2114, %2273 : tensor<256xf32>
    %2275 = stablehlo.sqrt %2274 : tensor<256xf32>
    %cst_569 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2276 = stablehlo.broadcast_in_dim %cst_569, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2277 = stablehlo.add %2275, %2276 : tensor<256xf32>
    %2278 = stablehlo.divide %2007, %2277 : tensor<256xf32>
    %cst_570 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2279 = stablehlo.broadcast_in_dim %cst_570, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2280 = stablehlo.add %2116, %2279 : tensor<256x256xf32>
    %2281 = stablehlo.sqrt %2280 : tensor<256x256xf32>
    %cst_571 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2282 = stablehlo.broadcast_in_dim %cst_571, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2283 = stablehlo.add %2281, %2282 : tensor<256x256xf32>
    %2284 = stablehlo.divide %2009, %2283 : tensor<256x256xf32>
    %cst_572 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2285 = stablehlo.broadcast_in_dim %cst_572, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2286 = stablehlo.add %2118, %2285 : tensor<256xf32>
    %2287 = stablehlo.sqrt %2286 : tensor<256xf32>
    %cst_573 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2288 = stablehlo.broadcast_in_dim %cst_573, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2289 = stablehlo.add %2287, %2288 : tensor<256xf32>
    %2290 = stablehlo.divide %2011, %2289 : tensor<256xf32>
    %cst_574 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2291 = stablehlo.broadcast_in_dim %cst_574, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2292 = stablehlo.add %2120, %2291 : tensor<256xf32>
    %2293 = stablehlo.sqrt %2292 : tensor<256xf32>
    %cst_575 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2294 = stablehlo.broadcast_in_dim %cst_575, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2295 = stablehlo.add %2293, %2294 : tensor<256xf32>
    %2296 = stablehlo.divide %2013, %2295 : tensor<256xf32>
    %cst_576 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2297 = stablehlo.broadcast_in_dim %cst_576, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2298 = stablehlo.add %2122, %2297 : tensor<256xf32>
    %2299 = stablehlo.sqrt %2298 : tensor<256xf32>
    %cst_577 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2300 = stablehlo.broadcast_in_dim %cst_577, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2301 = stablehlo.add %2299, %2300 : tensor<256xf32>
    %2302 = stablehlo.divide %2015, %2301 : tensor<256xf32>
    %cst_578 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2303 = stablehlo.broadcast_in_dim %cst_578, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2304 = stablehlo.add %2124, %2303 : tensor<256xf32>
    %2305 = stablehlo.sqrt %2304 : tensor<256xf32>
    %cst_579 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2306 = stablehlo.broadcast_in_dim %cst_579, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2307 = stablehlo.add %2305, %2306 : tensor<256xf32>
    %2308 = stablehlo.divide %2017, %2307 : tensor<256xf32>
    %cst_580 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2309 = stablehlo.broadcast_in_dim %cst_580, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2310 = stablehlo.add %2126, %2309 : tensor<1024xf32>
    %2311 = stablehlo.sqrt %2310 : tensor<1024xf32>
    %cst_581 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2312 = stablehlo.broadcast_in_dim %cst_581, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2313 = stablehlo.add %2311, %2312 : tensor<1024xf32>
    %2314 = stablehlo.divide %2019, %2313 : tensor<1024xf32>
    %cst_582 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2315 = stablehlo.broadcast_in_dim %cst_582, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2316 = stablehlo.add %2128, %2315 : tensor<1024x256xf32>
    %2317 = stablehlo.sqrt %2316 : tensor<1024x256xf32>
    %cst_583 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2318 = stablehlo.broadcast_in_dim %cst_583, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2319 = stablehlo.add %2317, %2318 : tensor<1024x256xf32>
    %2320 = stablehlo.divide %2021, %2319 : tensor<1024x256xf32>
    %cst_584 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2321 = stablehlo.broadcast_in_dim %cst_584, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2322 = stablehlo.add %2130, %2321 : tensor<256xf32>
    %2323 = stablehlo.sqrt %2322 : tensor<256xf32>
    %cst_585 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2324 = stablehlo.broadcast_in_dim %cst_585, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2325 = stablehlo.add %2323, %2324 : tensor<256xf32>
    %2326 = stablehlo.divide %2023, %2325 : tensor<256xf32>
    %cst_586 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2327 = stablehlo.broadcast_in_dim %cst_586, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2328 = stablehlo.add %2132, %2327 : tensor<256x1024xf32>
    %2329 = stablehlo.sqrt %2328 : tensor<256x1024xf32>
    %cst_587 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2330 = stablehlo.broadcast_in_dim %cst_587, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2331 = stablehlo.add %2329, %2330 : tensor<256x1024xf32>
    %2332 = stablehlo.divide %2025, %2331 : tensor<256x1024xf32>
    %cst_588 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2333 = stablehlo.broadcast_in_dim %cst_588, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2334 = stablehlo.add %2134, %2333 : tensor<768xf32>
    %2335 = stablehlo.sqrt %2334 : tensor<768xf32>
    %cst_589 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2336 = stablehlo.broadcast_in_dim %cst_589, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2337 = stablehlo.add %2335, %2336 : tensor<768xf32>
    %2338 = stablehlo.divide %2027, %2337 : tensor<768xf32>
    %cst_590 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2339 = stablehlo.broadcast_in_dim %cst_590, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2340 = stablehlo.add %2136, %2339 : tensor<768x256xf32>
    %2341 = stablehlo.sqrt %2340 : tensor<768x256xf32>
    %cst_591 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2342 = stablehlo.broadcast_in_dim %cst_591, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2343 = stablehlo.add %2341, %2342 : tensor<768x256xf32>
    %2344 = stablehlo.divide %2029, %2343 : tensor<768x256xf32>
    %cst_592 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2345 = stablehlo.broadcast_in_dim %cst_592, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2346 = stablehlo.add %2138, %2345 : tensor<256xf32>
    %2347 = stablehlo.sqrt %2346 : tensor<256xf32>
    %cst_593 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2348 = stablehlo.broadcast_in_dim %cst_593, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2349 = stablehlo.add %2347, %2348 : tensor<256xf32>
    %2350 = stablehlo.divide %2031, %2349 : tensor<256xf32>
    %cst_594 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2351 = stablehlo.broadcast_in_dim %cst_594, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2352 = stablehlo.add %2140, %2351 : tensor<256x256xf32>
    %2353 = stablehlo.sqrt %2352 : tensor<256x256xf32>
    %cst_595 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2354 = stablehlo.broadcast_in_dim %cst_595, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2355 = stablehlo.add %2353, %2354 : tensor<256x256xf32>
    %2356 = stablehlo.divide %2033, %2355 : tensor<256x256xf32>
    %cst_596 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2357 = stablehlo.broadcast_in_dim %cst_596, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2358 = stablehlo.add %2142, %2357 : tensor<256xf32>
    %2359 = stablehlo.sqrt %2358 : tensor<256xf32>
    %cst_597 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2360 = stablehlo.broadcast_in_dim %cst_597, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2361 = stablehlo.add %2359, %2360 : tensor<256xf32>
    %2362 = stablehlo.divide %2035, %2361 : tensor<256xf32>
    %cst_598 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2363 = stablehlo.broadcast_in_dim %cst_598, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2364 = stablehlo.add %2144, %2363 : tensor<256xf32>
    %2365 = stablehlo.sqrt %2364 : tensor<256xf32>
    %cst_599 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2366 = stablehlo.broadcast_in_dim %cst_599, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2367 = stablehlo.add %2365, %2366 : tensor<256xf32>
    %2368 = stablehlo.divide %2037, %2367 : tensor<256xf32>
    %cst_600 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2369 = stablehlo.broadcast_in_dim %cst_600, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2370 = stablehlo.add %2146, %2369 : tensor<256xf32>
    %2371 = stablehlo.sqrt %2370 : tensor<256xf32>
    %cst_601 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2372 = stablehlo.broadcast_in_dim %cst_601, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2373 = stablehlo.add %2371, %2372 : tensor<256xf32>
    %2374 = stablehlo.divide %2039, %2373 : tensor<256xf32>
    %cst_602 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2375 = stablehlo.broadcast_in_dim %cst_602, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2376 = stablehlo.add %2148, %2375 : tensor<256xf32>
    %2377 = stablehlo.sqrt %2376 : tensor<256xf32>
    %cst_603 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2378 = stablehlo.broadcast_in_dim %cst_603, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2379 = stablehlo.add %2377, %2378 : tensor<256xf32>
    %2380 = stablehlo.divide %2041, %2379 : tensor<256xf32>
    %cst_604 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2381 = stablehlo.broadcast_in_dim %cst_604, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2382 = stablehlo.add %2150, %2381 : tensor<1024xf32>
    %2383 = stablehlo.sqrt %2382 : tensor<1024xf32>
    %cst_605 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2384 = stablehlo.broadcast_in_dim %cst_605, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2385 = stablehlo.add %2383, %2384 : tensor<1024xf32>
    %2386 = stablehlo.divide %2043, %2385 : tensor<1024xf32>
    %cst_606 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2387 = stablehlo.broadcast_in_dim %cst_606, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2388 = stablehlo.add %2152, %2387 : tensor<1024x256xf32>
    %2389 = stablehlo.sqrt %2388 : tensor<1024x256xf32>
    %cst_607 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2390 = stablehlo.broadcast_in_dim %cst_607, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2391 = stablehlo.add %2389, %2390 : tensor<1024x256xf32>
    %2392 = stablehlo.divide %2045, %2391 : tensor<1024x256xf32>
    %cst_608 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2393 = stablehlo.broadcast_in_dim %cst_608, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2394 = stablehlo.add %2154, %2393 : tensor<256xf32>
    %2395 = stablehlo.sqrt %2394 : tensor<256xf32>
    %cst_609 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2396 = stablehlo.broadcast_in_dim %cst_609, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2397 = stablehlo.add %2395, %2396 : tensor<256xf32>
    %2398 = stablehlo.divide %2047, %2397 : tensor<256xf32>
    %cst_610 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2399 = stablehlo.broadcast_in_dim %cst_610, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2400 = stablehlo.add %2156, %2399 : tensor<256x1024xf32>
    %2401 = stablehlo.sqrt %2400 : tensor<256x1024xf32>
    %cst_611 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2402 = stablehlo.broadcast_in_dim %cst_611, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2403 = stablehlo.add %2401, %2402 : tensor<256x1024xf32>
    %2404 = stablehlo.divide %2049, %2403 : tensor<256x1024xf32>
    %cst_612 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2405 = stablehlo.broadcast_in_dim %cst_612, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2406 = stablehlo.add %2158, %2405 : tensor<768xf32>
    %2407 = stablehlo.sqrt %2406 : tensor<768xf32>
    %cst_613 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2408 = stablehlo.broadcast_in_dim %cst_613, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2409 = stablehlo.add %2407, %2408 : tensor<768xf32>
    %2410 = stablehlo.divide %2051, %2409 : tensor<768xf32>
    %cst_614 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2411 = stablehlo.broadcast_in_dim %cst_614, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2412 = stablehlo.add %2160, %2411 : tensor<768x256xf32>
    %2413 = stablehlo.sqrt %2412 : tensor<768x256xf32>
    %cst_615 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2414 = stablehlo.broadcast_in_dim %cst_615, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2415 = stablehlo.add %2413, %2414 : tensor<768x256xf32>
    %2416 = stablehlo.divide %2053, %2415 : tensor<768x256xf32>
    %cst_616 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2417 = stablehlo.broadcast_in_dim %cst_616, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2418 = stablehlo.add %2162, %2417 : tensor<256xf32>
    %2419 = stablehlo.sqrt %2418 : tensor<256xf32>
    %cst_617 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2420 = stablehlo.broadcast_in_dim %cst_617, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2421 = stablehlo.add %2419, %2420 : tensor<256xf32>
    %2422 = stablehlo.divide %2055, %2421 : tensor<256xf32>
    %cst_618 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2423 = stablehlo.broadcast_in_dim %cst_618, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2424 = stablehlo.add %2164, %2423 : tensor<256x256xf32>
    %2425 = stablehlo.sqrt %2424 : tensor<256x256xf32>
    %cst_619 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2426 = stablehlo.broadcast_in_dim %cst_619, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2427 = stablehlo.add %2425, %2426 : tensor<256x256xf32>
    %2428 = stablehlo.divide %2057, %2427 : tensor<256x256xf32>
    %cst_620 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2429 = stablehlo.broadcast_in_dim %cst_620, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2430 = stablehlo.add %2166, %2429 : tensor<256xf32>
    %2431 = stablehlo.sqrt %2430 : tensor<256xf32>
    %cst_621 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2432 = stablehlo.broadcast_in_dim %cst_621, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2433 = stablehlo.add %2431, %2432 : tensor<256xf32>
    %2434 = stablehlo.divide %2059, %2433 : tensor<256xf32>
    %cst_622 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2435 = stablehlo.broadcast_in_dim %cst_622, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2436 = stablehlo.add %2168, %2435 : tensor<256xf32>
    %2437 = stablehlo.sqrt %2436 : tensor<256xf32>
    %cst_623 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2438 = stablehlo.broadcast_in_dim %cst_623, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2439 = stablehlo.add %2437, %2438 : tensor<256xf32>
    %2440 = stablehlo.divide %2061, %2439 : tensor<256xf32>
    %cst_624 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2441 = stablehlo.broadcast_in_dim %cst_624, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2442 = stablehlo.add %2170, %2441 : tensor<256xf32>
    %2443 = stablehlo.sqrt %2442 : tensor<256xf32>
    %cst_625 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2444 = stablehlo.broadcast_in_dim %cst_625, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2445 = stablehlo.add %2443, %2444 : tensor<256xf32>
    %2446 = stablehlo.divide %2063, %2445 : tensor<256xf32>
    %cst_626 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2447 = stablehlo.broadcast_in_dim %cst_626, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2448 = stablehlo.add %2172, %2447 : tensor<256xf32>
    %2449 = stablehlo.sqrt %2448 : tensor<256xf32>
    %cst_627 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2450 = stablehlo.broadcast_in_dim %cst_627, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2451 = stablehlo.add %2449, %2450 : tensor<256xf32>
    %2452 = stablehlo.divide %2065, %2451 : tensor<256xf32>
    %cst_628 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2453 = stablehlo.broadcast_in_dim %cst_628, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2454 = stablehlo.add %2174, %2453 : tensor<1024xf32>
    %2455 = stablehlo.sqrt %2454 : tensor<1024xf32>
    %cst_629 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2456 = stablehlo.broadcast_in_dim %cst_629, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2457 = stablehlo.add %2455, %2456 : tensor<1024xf32>
    %2458 = stablehlo.divide %2067, %2457 : tensor<1024xf32>
    %cst_630 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2459 = stablehlo.broadcast_in_dim %cst_630, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2460 = stablehlo.add %2176, %2459 : tensor<1024x256xf32>
    %2461 = stablehlo.sqrt %2460 : tensor<1024x256xf32>
    %cst_631 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2462 = stablehlo.broadcast_in_dim %cst_631, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2463 = stablehlo.add %2461, %2462 : tensor<1024x256xf32>
    %2464 = stablehlo.divide %2069, %2463 : tensor<1024x256xf32>
    %cst_632 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2465 = stablehlo.broadcast_in_dim %cst_632, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2466 = stablehlo.add %2178, %2465 : tensor<256xf32>
    %2467 = stablehlo.sqrt %2466 : tensor<256xf32>
    %cst_633 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2468 = stablehlo.broadcast_in_dim %cst_633, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2469 = stablehlo.add %2467, %2468 : tensor<256xf32>
    %2470 = stablehlo.divide %2071, %2469 : tensor<256xf32>
    %cst_634 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2471 = stablehlo.broadcast_in_dim %cst_634, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2472 = stablehlo.add %2180, %2471 : tensor<256x1024xf32>
    %2473 = stablehlo.sqrt %2472 : tensor<256x1024xf32>
    %cst_635 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2474 = stablehlo.broadcast_in_dim %cst_635, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2475 = stablehlo.add %2473, %2474 : tensor<256x1024xf32>
    %2476 = stablehlo.divide %2073, %2475 : tensor<256x1024xf32>
    %cst_636 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2477 = stablehlo.broadcast_in_dim %cst_636, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2478 = stablehlo.add %2182, %2477 : tensor<256xf32>
    %2479 = stablehlo.sqrt %2478 : tensor<256xf32>
    %cst_637 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2480 = stablehlo.broadcast_in_dim %cst_637, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2481 = stablehlo.add %2479, %2480 : tensor<256xf32>
    %2482 = stablehlo.divide %2075, %2481 : tensor<256xf32>
    %cst_638 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2483 = stablehlo.broadcast_in_dim %cst_638, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2484 = stablehlo.add %2184, %2483 : tensor<256xf32>
    %2485 = stablehlo.sqrt %2484 : tensor<256xf32>
    %cst_639 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2486 = stablehlo.broadcast_in_dim %cst_639, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2487 = stablehlo.add %2485, %2486 : tensor<256xf32>
    %2488 = stablehlo.divide %2077, %2487 : tensor<256xf32>
    %cst_640 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2489 = stablehlo.broadcast_in_dim %cst_640, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %2490 = stablehlo.add %2186, %2489 : tensor<128x256xf32>
    %2491 = stablehlo.sqrt %2490 : tensor<128x256xf32>
    %cst_641 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2492 = stablehlo.broadcast_in_dim %cst_641, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %2493 = stablehlo.add %2491, %2492 : tensor<128x256xf32>
    %2494 = stablehlo.divide %2079, %2493 : tensor<128x256xf32>
    %cst_642 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2495 = stablehlo.broadcast_in_dim %cst_642, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %2496 = stablehlo.add %2188, %2495 : tensor<50257x256xf32>
    %2497 = stablehlo.sqrt %2496 : tensor<50257x256xf32>
    %cst_643 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %2498 = stablehlo.broadcast_in_dim %cst_643, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %2499 = stablehlo.add %2497, %2498 : tensor<50257x256xf32>
    %2500 = stablehlo.divide %2081, %2499 : tensor<50257x256xf32>
    %cst_644 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2501 = stablehlo.broadcast_in_dim %cst_644, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2502 = stablehlo.multiply %2501, %arg0 : tensor<768xf32>
    %2503 = stablehlo.add %2194, %2502 : tensor<768xf32>
    %cst_645 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2504 = stablehlo.broadcast_in_dim %cst_645, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2505 = stablehlo.multiply %2504, %arg1 : tensor<768x256xf32>
    %2506 = stablehlo.add %2200, %2505 : tensor<768x256xf32>
    %cst_646 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2507 = stablehlo.broadcast_in_dim %cst_646, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2508 = stablehlo.multiply %2507, %arg2 : tensor<256xf32>
    %2509 = stablehlo.add %2206, %2508 : tensor<256xf32>
    %cst_647 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2510 = stablehlo.broadcast_in_dim %cst_647, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2511 = stablehlo.multiply %2510, %arg3 : tensor<256x256xf32>
    %2512 = stablehlo.add %2212, %2511 : tensor<256x256xf32>
    %cst_648 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2513 = stablehlo.broadcast_in_dim %cst_648, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2514 = stablehlo.multiply %2513, %arg4 : tensor<256xf32>
    %2515 = stablehlo.add %2218, %2514 : tensor<256xf32>
    %cst_649 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2516 = stablehlo.broadcast_in_dim %cst_649, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2517 = stablehlo.multiply %2516, %arg5 : tensor<256xf32>
    %2518 = stablehlo.add %2224, %2517 : tensor<256xf32>
    %cst_650 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2519 = stablehlo.broadcast_in_dim %cst_650, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2520 = stablehlo.multiply %2519, %arg6 : tensor<256xf32>
    %2521 = stablehlo.add %2230, %2520 : tensor<256xf32>
    %cst_651 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2522 = stablehlo.broadcast_in_dim %cst_651, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2523 = stablehlo.multiply %2522, %arg7 : tensor<256xf32>
    %2524 = stablehlo.add %2236, %2523 : tensor<256xf32>
    %cst_652 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2525 = stablehlo.broadcast_in_dim %cst_652, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2526 = stablehlo.multiply %2525, %arg8 : tensor<1024xf32>
    %2527 = stablehlo.add %2242, %2526 : tensor<1024xf32>
    %cst_653 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2528 = stablehlo.broadcast_in_dim %cst_653, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2529 = stablehlo.multiply %2528, %arg9 : tensor<1024x256xf32>
    %2530 = stablehlo.add %2248, %2529 : tensor<1024x256xf32>
    %cst_654 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2531 = stablehlo.broadcast_in_dim %cst_654, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2532 = stablehlo.multiply %2531, %arg10 : tensor<256xf32>
    %2533 = stablehlo.add %2254, %2532 : tensor<256xf32>
    %cst_655 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2534 = stablehlo.broadcast_in_dim %cst_655, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2535 = stablehlo.multiply %2534, %arg11 : tensor<256x1024xf32>
    %2536 = stablehlo.add %2260, %2535 : tensor<256x1024xf32>
    %cst_656 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2537 = stablehlo.broadcast_in_dim %cst_656, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2538 = stablehlo.multiply %2537, %arg12 : tensor<768xf32>
    %2539 = stablehlo.add %2266, %2538 : tensor<768xf32>
    %cst_657 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2540 = stablehlo.broadcast_in_dim %cst_657, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2541 = stablehlo.multiply %2540, %arg13 : tensor<768x256xf32>
    %2542 = stablehlo.add %2272, %2541 : tensor<768x256xf32>
    %cst_658 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2543 = stablehlo.broadcast_in_dim %cst_658, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2544 = stablehlo.multiply %2543, %arg14 : tensor<256xf32>
    %2545 = stablehlo.add %2278, %2544 : tensor<256xf32>
    %cst_659 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2546 = stablehlo.broadcast_in_dim %cst_659, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2547 = stablehlo.multiply %2546, %arg15 : tensor<256x256xf32>
    %2548 = stablehlo.add %2284, %2547 : tensor<256x256xf32>
    %cst_660 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2549 = stablehlo.broadcast_in_dim %cst_660, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2550 = stablehlo.multiply %2549, %arg16 : tensor<256xf32>
    %2551 = stablehlo.add %2290, %2550 : tensor<256xf32>
    %cst_661 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2552 = stablehlo.broadcast_in_dim %cst_661, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2553 = stablehlo.multiply %2552, %arg17 : tensor<256xf32>
    %2554 = stablehlo.add %2296, %2553 : tensor<256xf32>
    %cst_662 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2555 = stablehlo.broadcast_in_dim %cst_662, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2556 = stablehlo.multiply %2555, %arg18 : tensor<256xf32>
    %2557 = stablehlo.add %2302, %2556 : tensor<256xf32>
    %cst_663 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2558 = stablehlo.broadcast_in_dim %cst_663, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2559 = stablehlo.multiply %2558, %arg19 : tensor<256xf32>
    %2560 = stablehlo.add %2308, %2559 : tensor<256xf32>
    %cst_664 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2561 = stablehlo.broadcast_in_dim %cst_664, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2562 = stablehlo.multiply %2561, %arg20 : tensor<1024xf32>
    %2563 = stablehlo.add %2314, %2562 : tensor<1024xf32>
    %cst_665 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2564 = stablehlo.broadcast_in_dim %cst_665, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2565 = stablehlo.multiply %2564, %arg21 : tensor<1024x256xf32>
    %2566 = stablehlo.add %2320, %2565 : tensor<1024x256xf32>
    %cst_666 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2567 = stablehlo.broadcast_in_dim %cst_666, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2568 = stablehlo.multiply %2567, %arg22 : tensor<256xf32>
    %2569 = stablehlo.add %2326, %2568 : tensor<256xf32>
    %cst_667 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2570 = stablehlo.broadcast_in_dim %cst_667, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2571 = stablehlo.multiply %2570, %arg23 : tensor<256x1024xf32>
    %2572 = stablehlo.add %2332, %2571 : tensor<256x1024xf32>
    %cst_668 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2573 = stablehlo.broadcast_in_dim %cst_668, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2574 = stablehlo.multiply %2573, %arg24 : tensor<768xf32>
    %2575 = stablehlo.add %2338, %2574 : tensor<768xf32>
    %cst_669 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2576 = stablehlo.broadcast_in_dim %cst_669, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2577 = stablehlo.multiply %2576, %arg25 : tensor<768x256xf32>
    %2578 = stablehlo.add %2344, %2577 : tensor<768x256xf32>
    %cst_670 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2579 = stablehlo.broadcast_in_dim %cst_670, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2580 = stablehlo.multiply %2579, %arg26 : tensor<256xf32>
    %2581 = stablehlo.add %2350, %2580 : tensor<256xf32>
    %cst_671 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2582 = stablehlo.broadcast_in_dim %cst_671, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2583 = stablehlo.multiply %2582, %arg27 : tensor<256x256xf32>
    %2584 = stablehlo.add %2356, %2583 : tensor<256x256xf32>
    %cst_672 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2585 = stablehlo.broadcast_in_dim %cst_672, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2586 = stablehlo.multiply %2585, %arg28 : tensor<256xf32>
    %2587 = stablehlo.add %2362, %2586 : tensor<256xf32>
    %cst_673 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2588 = stablehlo.broadcast_in_dim %cst_673, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2589 = stablehlo.multiply %2588, %arg29 : tensor<256xf32>
    %2590 = stablehlo.add %2368, %2589 : tensor<256xf32>
    %cst_674 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2591 = stablehlo.broadcast_in_dim %cst_674, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2592 = stablehlo.multiply %2591, %arg30 : tensor<256xf32>
    %2593 = stablehlo.add %2374, %2592 : tensor<256xf32>
    %cst_675 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2594 = stablehlo.broadcast_in_dim %cst_675, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2595 = stablehlo.multiply %2594, %arg31 : tensor<256xf32>
    %2596 = stablehlo.add %2380, %2595 : tensor<256xf32>
    %cst_676 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2597 = stablehlo.broadcast_in_dim %cst_676, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2598 = stablehlo.multiply %2597, %arg32 : tensor<1024xf32>
    %2599 = stablehlo.add %2386, %2598 : tensor<1024xf32>
    %cst_677 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2600 = stablehlo.broadcast_in_dim %cst_677, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2601 = stablehlo.multiply %2600, %arg33 : tensor<1024x256xf32>
    %2602 = stablehlo.add %2392, %2601 : tensor<1024x256xf32>
    %cst_678 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2603 = stablehlo.broadcast_in_dim %cst_678, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2604 = stablehlo.multiply %2603, %arg34 : tensor<256xf32>
    %2605 = stablehlo.add %2398, %2604 : tensor<256xf32>
    %cst_679 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2606 = stablehlo.broadcast_in_dim %cst_679, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2607 = stablehlo.multiply %2606, %arg35 : tensor<256x1024xf32>
    %2608 = stablehlo.add %2404, %2607 : tensor<256x1024xf32>
    %cst_680 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2609 = stablehlo.broadcast_in_dim %cst_680, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2610 = stablehlo.multiply %2609, %arg36 : tensor<768xf32>
    %2611 = stablehlo.add %2410, %2610 : tensor<768xf32>
    %cst_681 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2612 = stablehlo.broadcast_in_dim %cst_681, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2613 = stablehlo.multiply %2612, %arg37 : tensor<768x256xf32>
    %2614 = stablehlo.add %2416, %2613 : tensor<768x256xf32>
    %cst_682 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2615 = stablehlo.broadcast_in_dim %cst_682, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2616 = stablehlo.multiply %2615, %arg38 : tensor<256xf32>
    %2617 = stablehlo.add %2422, %2616 : tensor<256xf32>
    %cst_683 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2618 = stablehlo.broadcast_in_dim %cst_683, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2619 = stablehlo.multiply %2618, %arg39 : tensor<256x256xf32>
    %2620 = stablehlo.add %2428, %2619 : tensor<256x256xf32>
    %cst_684 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2621 = stablehlo.broadcast_in_dim %cst_684, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2622 = stablehlo.multiply %2621, %arg40 : tensor<256xf32>
    %2623 = stablehlo.add %2434, %2622 : tensor<256xf32>
    %cst_685 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2624 = stablehlo.broadcast_in_dim %cst_685, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2625 = stablehlo.multiply %2624, %arg41 : tensor<256xf32>
    %2626 = stablehlo.add %2440, %2625 : tensor<256xf32>
    %cst_686 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2627 = stablehlo.broadcast_in_dim %cst_686, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2628 = stablehlo.multiply %2627, %arg42 : tensor<256xf32>
    %2629 = stablehlo.add %2446, %2628 : tensor<256xf32>
    %cst_687 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2630 = stablehlo.broadcast_in_dim %cst_687, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2631 = stablehlo.multiply %2630, %arg43 : tensor<256xf32>
    %2632 = stablehlo.add %2452, %2631 : tensor<256xf32>
    %cst_688 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2633 = stablehlo.broadcast_in_dim %cst_688, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2634 = stablehlo.multiply %2633, %arg44 : tensor<1024xf32>
    %2635 = stablehlo.add %2458, %2634 : tensor<1024xf32>
    %cst_689 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2636 = stablehlo.broadcast_in_dim %cst_689, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2637 = stablehlo.multiply %2636, %arg45 : tensor<1024x256xf32>
    %2638 = stablehlo.add %2464, %2637 : tensor<1024x256xf32>
    %cst_690 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2639 = stablehlo.broadcast_in_dim %cst_690, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2640 = stablehlo.multiply %2639, %arg46 : tensor<256xf32>
    %2641 = stablehlo.add %2470, %2640 : tensor<256xf32>
    %cst_691 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2642 = stablehlo.broadcast_in_dim %cst_691, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2643 = stablehlo.multiply %2642, %arg47 : tensor<256x1024xf32>
    %2644 = stablehlo.add %2476, %2643 : tensor<256x1024xf32>
    %cst_692 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2645 = stablehlo.broadcast_in_dim %cst_692, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2646 = stablehlo.multiply %2645, %arg48 : tensor<256xf32>
    %2647 = stablehlo.add %2482, %2646 : tensor<256xf32>
    %cst_693 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2648 = stablehlo.broadcast_in_dim %cst_693, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2649 = stablehlo.multiply %2648, %arg49 : tensor<256xf32>
    %2650 = stablehlo.add %2488, %2649 : tensor<256xf32>
    %cst_694 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2651 = stablehlo.broadcast_in_dim %cst_694, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %2652 = stablehlo.multiply %2651, %arg50 : tensor<128x256xf32>
    %2653 = stablehlo.add %2494, %2652 : tensor<128x256xf32>
    %cst_695 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %2654 = stablehlo.broadcast_in_dim %cst_695, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %2655 = stablehlo.multiply %2654, %arg51 : tensor<50257x256xf32>
    %2656 = stablehlo.add %2500, %2655 : tensor<50257x256xf32>
    %cst_696 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2657 = stablehlo.broadcast_in_dim %cst_696, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2658 = stablehlo.multiply %2657, %2503 : tensor<768xf32>
    %cst_697 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2659 = stablehlo.broadcast_in_dim %cst_697, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2660 = stablehlo.multiply %2659, %2506 : tensor<768x256xf32>
    %cst_698 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2661 = stablehlo.broadcast_in_dim %cst_698, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2662 = stablehlo.multiply %2661, %2509 : tensor<256xf32>
    %cst_699 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2663 = stablehlo.broadcast_in_dim %cst_699, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2664 = stablehlo.multiply %2663, %2512 : tensor<256x256xf32>
    %cst_700 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2665 = stablehlo.broadcast_in_dim %cst_700, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2666 = stablehlo.multiply %2665, %2515 : tensor<256xf32>
    %cst_701 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2667 = stablehlo.broadcast_in_dim %cst_701, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2668 = stablehlo.multiply %2667, %2518 : tensor<256xf32>
    %cst_702 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2669 = stablehlo.broadcast_in_dim %cst_702, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2670 = stablehlo.multiply %2669, %2521 : tensor<256xf32>
    %cst_703 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2671 = stablehlo.broadcast_in_dim %cst_703, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2672 = stablehlo.multiply %2671, %2524 : tensor<256xf32>
    %cst_704 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2673 = stablehlo.broadcast_in_dim %cst_704, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2674 = stablehlo.multiply %2673, %2527 : tensor<1024xf32>
    %cst_705 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2675 = stablehlo.broadcast_in_dim %cst_705, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2676 = stablehlo.multiply %2675, %2530 : tensor<1024x256xf32>
    %cst_706 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2677 = stablehlo.broadcast_in_dim %cst_706, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2678 = stablehlo.multiply %2677, %2533 : tensor<256xf32>
    %cst_707 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2679 = stablehlo.broadcast_in_dim %cst_707, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2680 = stablehlo.multiply %2679, %2536 : tensor<256x1024xf32>
    %cst_708 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2681 = stablehlo.broadcast_in_dim %cst_708, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2682 = stablehlo.multiply %2681, %2539 : tensor<768xf32>
    %cst_709 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2683 = stablehlo.broadcast_in_dim %cst_709, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2684 = stablehlo.multiply %2683, %2542 : tensor<768x256xf32>
    %cst_710 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2685 = stablehlo.broadcast_in_dim %cst_710, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2686 = stablehlo.multiply %2685, %2545 : tensor<256xf32>
    %cst_711 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2687 = stablehlo.broadcast_in_dim %cst_711, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2688 = stablehlo.multiply %2687, %2548 : tensor<256x256xf32>
    %cst_712 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2689 = stablehlo.broadcast_in_dim %cst_712, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2690 = stablehlo.multiply %2689, %2551 : tensor<256xf32>
    %cst_713 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2691 = stablehlo.broadcast_in_dim %cst_713, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2692 = stablehlo.multiply %2691, %2554 : tensor<256xf32>
    %cst_714 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2693 = stablehlo.broadcast_in_dim %cst_714, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2694 = stablehlo.multiply %2693, %2557 : tensor<256xf32>
    %cst_715 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2695 = stablehlo.broadcast_in_dim %cst_715, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2696 = stablehlo.multiply %2695, %2560 : tensor<256xf32>
    %cst_716 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2697 = stablehlo.broadcast_in_dim %cst_716, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2698 = stablehlo.multiply %2697, %2563 : tensor<1024xf32>
    %cst_717 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2699 = stablehlo.broadcast_in_dim %cst_717, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2700 = stablehlo.multiply %2699, %2566 : tensor<1024x256xf32>
    %cst_718 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2701 = stablehlo.broadcast_in_dim %cst_718, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2702 = stablehlo.multiply %2701, %2569 : tensor<256xf32>
    %cst_719 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2703 = stablehlo.broadcast_in_dim %cst_719, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2704 = stablehlo.multiply %2703, %2572 : tensor<256x1024xf32>
    %cst_720 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2705 = stablehlo.broadcast_in_dim %cst_720, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2706 = stablehlo.multiply %2705, %2575 : tensor<768xf32>
    %cst_721 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2707 = stablehlo.broadcast_in_dim %cst_721, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2708 = stablehlo.multiply %2707, %2578 : tensor<768x256xf32>
    %cst_722 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2709 = stablehlo.broadcast_in_dim %cst_722, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2710 = stablehlo.multiply %2709, %2581 : tensor<256xf32>
    %cst_723 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2711 = stablehlo.broadcast_in_dim %cst_723, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2712 = stablehlo.multiply %2711, %2584 : tensor<256x256xf32>
    %cst_724 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2713 = stablehlo.broadcast_in_dim %cst_724, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2714 = stablehlo.multiply %2713, %2587 : tensor<256xf32>
    %cst_725 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2715 = stablehlo.broadcast_in_dim %cst_725, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2716 = stablehlo.multiply %2715, %2590 : tensor<256xf32>
    %cst_726 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2717 = stablehlo.broadcast_in_dim %cst_726, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2718 = stablehlo.multiply %2717, %2593 : tensor<256xf32>
    %cst_727 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2719 = stablehlo.broadcast_in_dim %cst_727, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2720 = stablehlo.multiply %2719, %2596 : tensor<256xf32>
    %cst_728 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2721 = stablehlo.broadcast_in_dim %cst_728, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2722 = stablehlo.multiply %2721, %2599 : tensor<1024xf32>
    %cst_729 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2723 = stablehlo.broadcast_in_dim %cst_729, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2724 = stablehlo.multiply %2723, %2602 : tensor<1024x256xf32>
    %cst_730 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2725 = stablehlo.broadcast_in_dim %cst_730, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2726 = stablehlo.multiply %2725, %2605 : tensor<256xf32>
    %cst_731 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2727 = stablehlo.broadcast_in_dim %cst_731, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2728 = stablehlo.multiply %2727, %2608 : tensor<256x1024xf32>
    %cst_732 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2729 = stablehlo.broadcast_in_dim %cst_732, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %2730 = stablehlo.multiply %2729, %2611 : tensor<768xf32>
    %cst_733 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2731 = stablehlo.broadcast_in_dim %cst_733, dims = [] : (tensor<f32>) -> tensor<768x256xf32>
    %2732 = stablehlo.multiply %2731, %2614 : tensor<768x256xf32>
    %cst_734 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2733 = stablehlo.broadcast_in_dim %cst_734, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2734 = stablehlo.multiply %2733, %2617 : tensor<256xf32>
    %cst_735 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2735 = stablehlo.broadcast_in_dim %cst_735, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %2736 = stablehlo.multiply %2735, %2620 : tensor<256x256xf32>
    %cst_736 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2737 = stablehlo.broadcast_in_dim %cst_736, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2738 = stablehlo.multiply %2737, %2623 : tensor<256xf32>
    %cst_737 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2739 = stablehlo.broadcast_in_dim %cst_737, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2740 = stablehlo.multiply %2739, %2626 : tensor<256xf32>
    %cst_738 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2741 = stablehlo.broadcast_in_dim %cst_738, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2742 = stablehlo.multiply %2741, %2629 : tensor<256xf32>
    %cst_739 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2743 = stablehlo.broadcast_in_dim %cst_739, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2744 = stablehlo.multiply %2743, %2632 : tensor<256xf32>
    %cst_740 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2745 = stablehlo.broadcast_in_dim %cst_740, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %2746 = stablehlo.multiply %2745, %2635 : tensor<1024xf32>
    %cst_741 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2747 = stablehlo.broadcast_in_dim %cst_741, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %2748 = stablehlo.multiply %2747, %2638 : tensor<1024x256xf32>
    %cst_742 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2749 = stablehlo.broadcast_in_dim %cst_742, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2750 = stablehlo.multiply %2749, %2641 : tensor<256xf32>
    %cst_743 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2751 = stablehlo.broadcast_in_dim %cst_743, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2752 = stablehlo.multiply %2751, %2644 : tensor<256x1024xf32>
    %cst_744 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2753 = stablehlo.broadcast_in_dim %cst_744, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2754 = stablehlo.multiply %2753, %2647 : tensor<256xf32>
    %cst_745 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2755 = stablehlo.broadcast_in_dim %cst_745, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2756 = stablehlo.multiply %2755, %2650 : tensor<256xf32>
    %cst_746 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2757 = stablehlo.broadcast_in_dim %cst_746, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %2758 = stablehlo.multiply %2757, %2653 : tensor<128x256xf32>
    %cst_747 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %2759 = stablehlo.broadcast_in_dim %cst_747, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %2760 = stablehlo.multiply %2759, %2656 : tensor<50257x256xf32>
    %2761 = stablehlo.add %arg0, %2658 : tensor<768xf32>
    %2762 = stablehlo.add %arg1, %2660 : tensor<768x256xf32>
    %2763 = stablehlo.add %arg2, %2662 : tensor<256xf32>
    %2764 = stablehlo.add %arg3, %2664 : tensor<256x256xf32>
    %2765 = stablehlo.add %arg4, %2666 : tensor<256xf32>
    %2766 = stablehlo.add %arg5, %2668 : tensor<256xf32>
    %2767 = stablehlo.add %arg6, %2670 : tensor<256xf32>
    %2768 = stablehlo.add %arg7, %2672 : tensor<256xf32>
    %2769 = stablehlo.add %arg8, %2674 : tensor<1024xf32>
    %2770 = stablehlo.add %arg9, %2676 : tensor<1024x256xf32>
    %2771 = stablehlo.add %arg10, %2678 : tensor<256xf32>
    %2772 = stablehlo.add %arg11, %2680 : tensor<256x1024xf32>
    %2773 = stablehlo.add %arg12, %2682 : tensor<768xf32>
    %2774 = stablehlo.add %arg13, %2684 : tensor<768x256xf32>
    %2775 = stablehlo.add %arg14, %2686 : tensor<256xf32>
    %2776 = stablehlo.add %arg15, %2688 : tensor<256x256xf32>
    %2777 = stablehlo.add %arg16, %2690 : tensor<256xf32>
    %2778 = stablehlo.add %arg17, %2692 : tensor<256xf32>
    %2779 = stablehlo.add %arg18, %2694 : tensor<256xf32>
    %2780 = stablehlo.add %arg19, %2696 : tensor<256xf32>
    %2781 = stablehlo.add %arg20, %2698 : tensor<1024xf32>
    %2782 = stablehlo.add %arg21, %2700 : tensor<1024x256xf32>
    %2783 = stablehlo.add %arg22, %2702 : tensor<256xf32>
    %2784 = stablehlo.add %arg23, %2704 : tensor<256x1024xf32>
    %2785 = stablehlo.add %arg24, %2706 : tensor<768xf32>
    %2786 = stablehlo.add %arg25, %2708 : tensor<768x256xf32>
    %2787 = stablehlo.add %arg26, %2710 : tensor<256xf32>
    %2788 = stablehlo.add %arg27, %2712 : tensor<256x256xf32>
    %2789 = stablehlo.add %arg28, %2714 : tensor<256xf32>
    %2790 = stablehlo.add %arg29, %2716 : tensor<256xf32>
    %2791 = stablehlo.add %arg30, %2718 : tensor<256xf32>
    %2792 = stablehlo.add %arg31, %2720 : tensor<256xf32>
    %2793 = stablehlo.add %arg32, %2722 : tensor<1024xf32>
    %2794 = stablehlo.add %arg33, %2724 : tensor<1024x256xf32>
    %2795 = stablehlo.add %arg34, %2726 : tensor<256xf32>
    %2796 = stablehlo.add %arg35, %2728 : tensor<256x1024xf32>
    %2797 = stablehlo.add %arg36, %2730 : tensor<768xf32>
    %2798 = stablehlo.add %arg37, %2732 : tensor<768x256xf32>
    %2799 = stablehlo.add %arg38, %2734 : tensor<256xf32>
    %2800 = stablehlo.add %arg39, %2736 : tensor<256x256xf32>
    %2801 = stablehlo.add %arg40, %2738 : tensor<256xf32>
    %2802 = stablehlo.add %arg41, %2740 : tensor<256xf32>
    %2803 = stablehlo.add %arg42, %2742 : tensor<256xf32>
    %2804 = stablehlo.add %arg43, %2744 : tensor<256xf32>
    %2805 = stablehlo.add %arg44, %2746 : tensor<1024xf32>
    %2806 = stablehlo.add %arg45, %2748 : tensor<1024x256xf32>
    %2807 = stablehlo.add %arg46, %2750 : tensor<256xf32>
    %2808 = stablehlo.add %arg47, %2752 : tensor<256x1024xf32>
    %2809 = stablehlo.add %arg48, %2754 : tensor<256xf32>
    %2810 = stablehlo.add %arg49, %2756 : tensor<256xf32>
    %2811 = stablehlo.add %arg50, %2758 : tensor<128x256xf32>
    %2812 = stablehlo.add %arg51, %2760 : tensor<50257x256xf32>
    return %796, %2761, %2762, %2763, %2764, %2765, %2766, %2767, %2768, %2769, %2770, %2771, %2772, %2773, %2774, %2775, %2776, %2777, %2778, %2779, %2780, %2781, %2782, %2783, %2784, %2785, %2786, %2787, %2788, %2789, %2790, %2791, %2792, %2793, %2794, %2795, %2796, %2797, %2798, %2799, %2800, %2801, %2802, %2803, %2804, %2805, %2806, %2807, %2808, %2809, %2810, %2811, %2812, %1974, %1404, %1409, %1414, %1419, %1424, %1429, %1434, %1439, %1444, %1449, %1454, %1459, %1464, %1469, %1474, %1479, %1484, %1489, %1494, %1499, %1504, %1509, %1514, %1519, %1524, %1529, %1534, %1539, %1544, %1549, %1554, %1559, %1564, %1569, %1574, %1579, %1584, %1589, %1594, %1599, %1604, %1609, %1614, %1619, %1624, %1629, %1634, %1639, %1644, %1649, %1654, %1659, %1665, %1671, %1677, %1683, %1689, %1695, %1701, %1707, %1713, %1719, %1725, %1731, %1737, %1743, %1749, %1755, %1761, %1767, %1773, %1779, %1785, %1791, %1797, %1803, %1809, %1815, %1821, %1827, %1833, %1839, %1845, %1851, %1857, %1863, %1869, %1875, %1881, %1887, %1893, %1899, %1905, %1911, %1917, %1923, %1929, %1935, %1941, %1947, %1953, %1959, %1965, %1971 : tensor<f32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<256xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<50257x256xf32>, tensor<i32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<256xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<50257x256xf32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<768xf32>, tensor<768x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<256xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<50257x256xf32>
  }
  func.func private @_take(%arg0: tensor<50257x256xf32>, %arg1: tensor<16x128xi32>) -> (tensor<16x128x256xf32>, tensor<16x128x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x128xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<16x128xi32>, tensor<16x128xi32>) -> tensor<16x128xi1>
    %c_0 = stablehlo.constant dense<50257> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<16x128xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<16x128xi32>
    %4 = call @_where(%1, %3, %arg1) : (tensor<16x128xi1>, tensor<16x128xi32>, tensor<16x128xi32>) -> tensor<16x128xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<16x128xi32>) -> tensor<16x128x1xi32>
    %c_1 = stablehlo.constant dense<50256> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<16x128x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<16x128x1xi32>, tensor<16x128x1xi32>) -> tensor<16x128x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<16x128x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<16x128x1xi32>, tensor<16x128x1xi32>) -> tensor<16x128x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<16x128x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<16x128x1xi1>, tensor<i1>) -> tensor<16x128xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 256>}> : (tensor<50257x256xf32>, tensor<16x128x1xi32>) -> tensor<16x128x256xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<16x128xi1>) -> tensor<16x128x256xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %16 = stablehlo.select %14, %13, %15 : tensor<16x128x256xi1>, tensor<16x128x256xf32>
    return %16, %5 : tensor<16x128x256xf32>, tensor<16x128x1xi32>
  }
  func.func private @_where(%arg0: tensor<16x128xi1>, %arg1: tensor<16x128xi32>, %arg2: tensor<16x128xi32>) -> tensor<16x128xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<16x128xi1>, tensor<16x128xi32>
    return %0 : tensor<16x128xi32>
  }
  func.func private @_take_0(%arg0: tensor<128x256xf32>, %arg1: tensor<16x128xi32>) -> (tensor<16x128x256xf32>, tensor<16x128x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x128xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<16x128xi32>, tensor<16x128xi32>) -> tensor<16x128xi1>
    %c_0 = stablehlo.constant dense<128> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<16x128xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<16x128xi32>
    %4 = call @_where(%1, %3, %arg1) : (tensor<16x128xi1>, tensor<16x128xi32>, tensor<16x128xi32>) -> tensor<16x128xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<16x128xi32>) -> tensor<16x128x1xi32>
    %c_1 = stablehlo.constant dense<127> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<16x128x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<16x128x1xi32>, tensor<16x128x1xi32>) -> tensor<16x128x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<16x128x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<16x128x1xi32>, tensor<16x128x1xi32>) -> tensor<16x128x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<16x128x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<16x128x1xi1>, tensor<i1>) -> tensor<16x128xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 256>}> : (tensor<128x256xf32>, tensor<16x128x1xi32>) -> tensor<16x128x256xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<16x128xi1>) -> tensor<16x128x256xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x128x256xf32>
    %16 = stablehlo.select %14, %13, %15 : tensor<16x128x256xi1>, tensor<16x128x256xf32>
    return %16, %5 : tensor<16x128x256xf32>, tensor<16x128x1xi32>
  }
  func.func private @take_along_axis(%arg0: tensor<16x127x50257xf32>, %arg1: tensor<16x127x1xi32>) -> (tensor<16x127x1xf32>, tensor<16x127x1x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x127x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<16x127x1xi32>, tensor<16x127x1xi32>) -> tensor<16x127x1xi1>
    %c_0 = stablehlo.constant dense<50257> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<16x127x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<16x127x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<16x127x1xi1>, tensor<16x127x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<16x127x1xi32>) -> tensor<16x127x1x1xi32>
    %c_1 = stablehlo.constant dense<50256> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<16x127x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<16x127x1x1xi32>, tensor<16x127x1x1xi32>) -> tensor<16x127x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [3] : (tensor<1xi32>) -> tensor<1x1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2, 3] : (tensor<1x1x1x1xi32>) -> tensor<16x127x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<16x127x1x1xi32>, tensor<16x127x1x1xi32>) -> tensor<16x127x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<16x127x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [3] : (tensor<16x127x1x1xi1>, tensor<i1>) -> tensor<16x127x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [2], operand_batching_dims = [0, 1], start_indices_batching_dims = [0, 1], start_index_map = [2], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<16x127x50257xf32>, tensor<16x127x1x1xi32>) -> tensor<16x127x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x127x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<16x127x1xi1>, tensor<16x127x1xf32>
    return %15, %5 : tensor<16x127x1xf32>, tensor<16x127x1x1xi32>
  }
  func.func private @_take_1(%arg0: tensor<16x127x1xf32>, %arg1: tensor<i32>) -> (tensor<16x127xf32>, tensor<1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = call @_where_2(%0, %1, %arg1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<1xi32>
    %4 = stablehlo.convert %3 : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %6 = stablehlo.compare GE, %4, %5, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %7 = stablehlo.compare LE, %4, %c_1, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %8 = stablehlo.and %6, %7 : tensor<1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %9 = stablehlo.reduce(%8 init: %c_3) applies stablehlo.and across dimensions = [0] : (tensor<1xi1>, tensor<i1>) -> tensor<i1>
    %10 = "stablehlo.gather"(%arg0, %4) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [2], start_index_map = [2]>, indices_are_sorted = false, slice_sizes = array<i64: 16, 127, 1>}> : (tensor<16x127x1xf32>, tensor<1xi32>) -> tensor<16x127xf32>
    %11 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<16x127xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x127xf32>
    %13 = stablehlo.select %11, %10, %12 : tensor<16x127xi1>, tensor<16x127xf32>
    return %13, %3 : tensor<16x127xf32>, tensor<1xi32>
  }
  func.func private @_where_2(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_take_3(%arg0: tensor<1xi32>, %arg1: tensor<16x127xf32>) -> tensor<16x127x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x127x1xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], inserted_window_dims = [2], scatter_dims_to_operand_dims = [2]>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<16x127x1xf32>, tensor<1xi32>, tensor<16x127xf32>) -> tensor<16x127x1xf32>
    return %1 : tensor<16x127x1xf32>
  }
  func.func private @take_along_axis_4(%arg0: tensor<16x127x1x1xi32>, %arg1: tensor<16x127x1xf32>) -> tensor<16x127x50257xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x127x50257xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [2], input_batching_dims = [0, 1], scatter_indices_batching_dims = [0, 1], scatter_dims_to_operand_dims = [2], index_vector_dim = 3>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<16x127x50257xf32>, tensor<16x127x1x1xi32>, tensor<16x127x1xf32>) -> tensor<16x127x50257xf32>
    return %1 : tensor<16x127x50257xf32>
  }
  func.func private @_take_5(%arg0: tensor<16x128x1xi32>, %arg1: tensor<16x128x256xf32>) -> tensor<128x256xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<128x256xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<128x256xf32>, tensor<16x128x1xi32>, tensor<16x128x256xf32>) -> tensor<128x256xf32>
    return %1 : tensor<128x256xf32>
  }
  func.func private @_take_6(%arg0: tensor<16x128x1xi32>, %arg1: tensor<16x128x256xf32>) -> tensor<50257x256xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<50257x256xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<50257x256xf32>, tensor<16x128x1xi32>, tensor<16x128x256xf32>) -> tensor<50257x256xf32>
    return %1 : tensor<50257x256xf32>
  }
  func.func private @_where_7(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
