using System.Collections.Immutable;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace Prewire.Harness;

/// <summary>
/// What a NativeAOT binary is made of, per assembly, read from the <c>.mstat</c> file ILC writes with
/// <c>IlcGenerateMstatFile</c> (build/NativeAot.props sets it for the apps). The file is an ECMA-335
/// assembly whose global methods hold the data as IL: "Types" is <c>ldtoken type; ldc.i4 size;
/// ldc.i4 name</c> per type, "Methods" <c>ldtoken method; ldc.i4 code; ldc.i4 gcinfo; ldc.i4 ehinfo;
/// ldc.i4 name</c> per method body, "Blobs" <c>ldstr node; ldc.i4 size</c> for everything else
/// (metadata for reflection, hashtables, frozen objects, resources). A generic instantiation counts
/// for the assembly that defines the generic type (<c>List&lt;Prewire.X&gt;</c> is CoreLib's). Type
/// structures are stored compressed ("DehydratedData", expanded at start-up): each assembly's share
/// of that blob is its share of the expanded sizes.
/// </summary>
public sealed record Mstat(IReadOnlyDictionary<string, long> ByAssembly, long Blobs)
{
    private const string Dehydrated = "DehydratedData";

    /// <summary>Bytes of compiled managed code and type structures, all assemblies.</summary>
    public long Managed => ByAssembly.Values.Sum();

    public static Mstat Read(string path)
    {
        using var pe = new PEReader(File.OpenRead(path));
        var reader = pe.GetMetadataReader();
        var owner = new OwnerProvider(reader);
        var code = new Dictionary<string, long>(StringComparer.Ordinal);
        var types = new Dictionary<string, long>(StringComparer.Ordinal);
        var blobs = new Dictionary<string, long>(StringComparer.Ordinal);
        var global = reader.GetTypeDefinition(MetadataTokens.TypeDefinitionHandle(1));
        foreach (var handle in global.GetMethods())
        {
            var method = reader.GetMethodDefinition(handle);
            var il = pe.GetMethodBody(method.RelativeVirtualAddress).GetILReader();
            switch (reader.GetString(method.Name))
            {
                case "Types":
                    while (il.RemainingBytes > 0)
                    {
                        var type = ReadToken(ref il);
                        Add(types, owner.Of(type), ReadInt32(ref il));
                        ReadInt32(ref il);
                    }
                    break;
                case "Methods":
                    while (il.RemainingBytes > 0)
                    {
                        var body = ReadToken(ref il);
                        Add(code, owner.Of(body), ReadInt32(ref il) + ReadInt32(ref il) + ReadInt32(ref il));
                        ReadInt32(ref il);
                    }
                    break;
                case "Blobs":
                    while (il.RemainingBytes > 0)
                    {
                        Expect(ref il, ILOpCode.Ldstr);
                        var node = reader.GetUserString(MetadataTokens.UserStringHandle(il.ReadInt32() & 0xFFFFFF));
                        Add(blobs, node, ReadInt32(ref il));
                    }
                    break;
            }
        }
        var dehydrated = blobs.Remove(Dehydrated, out var packed) ? packed : types.Values.Sum();
        var scale = types.Count == 0 ? 0 : (double)dehydrated / types.Values.Sum();
        foreach (var (assembly, bytes) in types) Add(code, assembly, (long)(bytes * scale));
        return new Mstat(code, blobs.Values.Sum());

        static void Add(Dictionary<string, long> sizes, string key, long bytes) => sizes[key] = sizes.GetValueOrDefault(key) + bytes;
    }

    private static EntityHandle ReadToken(ref BlobReader il)
    {
        Expect(ref il, ILOpCode.Ldtoken);
        return MetadataTokens.EntityHandle(il.ReadInt32());
    }

    // ILC writes each number in the shortest ldc.i4 form.
    private static int ReadInt32(ref BlobReader il) => (ILOpCode)il.ReadByte() switch
    {
        >= ILOpCode.Ldc_i4_m1 and <= ILOpCode.Ldc_i4_8 and var small => small - ILOpCode.Ldc_i4_0,
        ILOpCode.Ldc_i4_s => il.ReadSByte(),
        ILOpCode.Ldc_i4 => il.ReadInt32(),
        var other => throw new InvalidDataException($"unexpected opcode {other} in an mstat number"),
    };

    private static void Expect(ref BlobReader il, ILOpCode opCode)
    {
        var read = (ILOpCode)il.ReadByte();
        if (read != opCode) throw new InvalidDataException($"expected {opCode} in the mstat file, found {read}");
    }

    /// <summary>The assembly a type, method or instantiation belongs to.</summary>
    private sealed class OwnerProvider(MetadataReader reader) : ISignatureTypeProvider<string, object?>
    {
        private const string CoreLib = "System.Private.CoreLib";

        public string Of(EntityHandle handle) => handle.Kind switch
        {
            HandleKind.TypeReference => GetTypeFromReference(reader, (TypeReferenceHandle)handle, 0),
            HandleKind.TypeSpecification => reader.GetTypeSpecification((TypeSpecificationHandle)handle).DecodeSignature(this, null),
            HandleKind.MemberReference => Of(reader.GetMemberReference((MemberReferenceHandle)handle).Parent),
            HandleKind.MethodSpecification => Of(reader.GetMethodSpecification((MethodSpecificationHandle)handle).Method),
            _ => "(other)",
        };

        public string GetTypeFromReference(MetadataReader metadata, TypeReferenceHandle handle, byte rawTypeKind)
        {
            var scope = reader.GetTypeReference(handle).ResolutionScope;
            return scope.Kind switch
            {
                HandleKind.AssemblyReference => reader.GetString(reader.GetAssemblyReference((AssemblyReferenceHandle)scope).Name),
                // A nested type: its enclosing type's assembly.
                HandleKind.TypeReference => GetTypeFromReference(metadata, (TypeReferenceHandle)scope, rawTypeKind),
                _ => "(other)",
            };
        }

        public string GetTypeFromSpecification(MetadataReader metadata, object? context, TypeSpecificationHandle handle, byte rawTypeKind) =>
            reader.GetTypeSpecification(handle).DecodeSignature(this, context);

        public string GetTypeFromDefinition(MetadataReader metadata, TypeDefinitionHandle handle, byte rawTypeKind) => "(other)";

        public string GetGenericInstantiation(string genericType, ImmutableArray<string> typeArguments) => genericType;

        public string GetSZArrayType(string elementType) => elementType;

        public string GetArrayType(string elementType, ArrayShape shape) => elementType;

        public string GetPointerType(string elementType) => elementType;

        public string GetByReferenceType(string elementType) => elementType;

        public string GetPinnedType(string elementType) => elementType;

        public string GetModifiedType(string modifier, string unmodifiedType, bool isRequired) => unmodifiedType;

        public string GetPrimitiveType(PrimitiveTypeCode typeCode) => CoreLib;

        public string GetFunctionPointerType(MethodSignature<string> signature) => CoreLib;

        public string GetGenericMethodParameter(object? genericContext, int index) => CoreLib;

        public string GetGenericTypeParameter(object? genericContext, int index) => CoreLib;
    }
}
